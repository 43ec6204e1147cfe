import { apiFields, modelField, type AnyResourceDefinition } from './definition';

export type View = { id: string } & Record<string, unknown>;

/** A record loaded with only some fields (a listing with `fields`): `id` is always there. */
export type Selected<M extends { id: string }> = Pick<M, 'id'> & Partial<M>;

export interface ViewRenderer<M extends { id: string }> {
  /** The full view: `id` first, the fields in their declared order, the owner as `user: { id }`, dates as ISO 8601. */
  (model: M): View;
  /** Only `id` and the `selected` fields (a listing with `fields`). */
  (model: Selected<M>, selected: string[] | undefined): View;
}

const render = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** How a resource's records are shown; an optional field that was never set is left out. */
export function defineView<M extends { id: string }>(definition: AnyResourceDefinition): ViewRenderer<M> {
  const fields = apiFields(definition);
  return (model: M | Selected<M>, selected?: string[]) => {
    const source = model as unknown as Record<string, unknown>;
    const view: View = { id: model.id };
    for (const field of fields) {
      // A selected model was loaded with exactly the fields behind `selected`, so what runs is there.
      if (selected && !selected.includes(field)) continue;
      const value = source[modelField(field)];
      if (value === undefined) continue;
      view[field] = field === 'user' ? { id: value } : render(value);
    }
    return view;
  };
}
