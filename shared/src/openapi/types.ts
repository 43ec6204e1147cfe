import type { AccessLevel, HttpMethod } from '../http/routes';

/** The shapes of the OpenAPI 3.1 documents built here, as far as restgate fills them in. */

export type JsonSchema = { [keyword: string]: unknown };
export type OpenApiRef = { $ref: string };

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface OpenApiMediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiRef | { description?: string; schema: JsonSchema }>;
  content?: Record<string, OpenApiMediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse | OpenApiRef>;
  security: SecurityRequirement[];
  /** The level the security requirement was built from. */
  'x-restgate-level': AccessLevel;
  /** Set by the gateway on a route it serves that no upstream described. */
  'x-restgate-undocumented'?: true;
}

export type OpenApiPathItem = Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiComponents {
  schemas: Record<string, JsonSchema>;
  securitySchemes: Record<string, JsonSchema>;
  responses: Record<string, OpenApiResponse>;
  headers: Record<string, { description?: string; schema: JsonSchema }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: OpenApiInfo;
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, OpenApiPathItem>;
  components: OpenApiComponents;
  [extension: `x-${string}`]: unknown;
}

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '0.1.0';

/** A reference into the document's components. */
export const ref = (kind: 'schemas' | 'responses' | 'headers', name: string): OpenApiRef => ({ $ref: `#/components/${kind}/${name}` });

export const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);
