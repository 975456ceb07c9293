import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/** The OpenAPI 3.1 document of the whole API, generated from the zod schemas the routes validate with. */
export function openApiDocument(registry: OpenAPIRegistry): Record<string, unknown> {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key from the dashboard or `npm run admin -- account:create`. Use it from a backend only.',
  });
  registry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'hw_session',
    description:
      'The dashboard’s session (`POST /v1/session`): answers as the account’s API key does. POST, PUT, PATCH and DELETE also need ' +
      'the `X-CSRF-Token` header that `GET /v1/session` answers (403 `csrf_failed` without it).',
  });
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hashwatch API',
      version: '1.0.0',
      description:
        'Watch hashtags, cashtags and accounts on X. Every authenticated response carries X-RateLimit-Limit, ' +
        'X-RateLimit-Remaining and X-RateLimit-Reset; a 429 also carries Retry-After. Errors have the shape ' +
        '`{error:{code,message}}`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
  }) as unknown as Record<string, unknown>;
}
