export { mountDocs, type DocsRouterOptions } from './docs.router';
export { DOCS_ASSET_PATH, DOCS_CSP } from './docs-page';
export { mergeOpenApi, type DocsPolicyRow, type MergeOptions } from './merge-openapi';
export { createOpenApiSource, type OpenApiSource, type OpenApiSourceOptions } from './openapi-source';
