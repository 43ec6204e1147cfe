import type { Selected } from '../domain/resource';

/** How each API field is rendered from the model. `id` is not listed: it always comes first. */
export type FieldRenderers<M, F extends string> = Record<F, (model: M) => unknown>;

export type View = { id: string } & Record<string, unknown>;

export interface ViewRenderer<M extends { id: string }> {
  /** The full view. */
  (model: M): View;
  /** Only `id` and the `selected` fields (a listing with `fields`). */
  (model: Selected<M>, selected: string[] | undefined): View;
}

export function defineView<M extends { id: string }, F extends string>(renderers: FieldRenderers<M, F>): ViewRenderer<M> {
  const entries = Object.entries(renderers) as Array<[string, (model: M) => unknown]>;
  return (model: M | Selected<M>, selected?: string[]) => {
    const view: View = { id: model.id };
    for (const [field, render] of entries) {
      // A selected model was loaded with exactly the fields behind `selected` (same descriptor),
      // so each renderer that runs finds what it reads.
      if (!selected || selected.includes(field)) view[field] = render(model as M);
    }
    return view;
  };
}
