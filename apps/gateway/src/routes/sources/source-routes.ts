import type { z } from 'zod';
import type { ApiBuilder } from '../../http/api-builder';
import type { FiltersInput } from '@hashwatch/post-filters';
import type { JsonText } from '../../http/json-text';
import { deletedSchema, sourcePatchSchema, type SourcePatch } from './source-fields.schema';
import { filterPreviewBodySchema, filterPreviewSchema, PREVIEW_EXAMINED, PREVIEW_SHOWN } from './filter-preview';

/** One kind of source as the API serves it: its path, documentation, schemas and service. */
export interface SourceResource<C extends z.ZodType, S extends z.ZodType, L extends z.ZodType, I extends z.ZodType<{ id: string }>> {
  /** `/tracks` or `/accounts`. */
  path: string;
  tag: string;
  docs: {
    list: string;
    listed: string;
    create: string;
    createDescription?: string;
    created: string;
    patch: string;
    patched: string;
    remove: string;
    removed: string;
  };
  schemas: { create: C; source: S; list: L; idParams: I; patch?: z.ZodType<SourcePatch> };
  service: {
    list(userId: string): Promise<z.input<L>>;
    create(userId: string, input: z.output<C>): Promise<z.input<S>>;
    update(userId: string, id: string, patch: SourcePatch): Promise<z.input<S>>;
    preview(userId: string, id: string, filters: FiltersInput | null): Promise<JsonText>;
    remove(userId: string, id: string): Promise<void>;
  };
}

/** GET and POST on the collection, PATCH (engagement flags, filters) and DELETE on one source: the same for every kind. */
export function registerSourceRoutes<C extends z.ZodType, S extends z.ZodType, L extends z.ZodType, I extends z.ZodType<{ id: string }>>(
  api: ApiBuilder,
  resource: SourceResource<C, S, L, I>,
): void {
  const { path, tag, docs, schemas, service } = resource;
  api.route({
    method: 'get',
    path,
    tag,
    summary: docs.list,
    success: { status: 200, description: docs.listed, schema: schemas.list },
    handler: ({ auth }) => service.list(auth.userId),
  });
  api.route({
    method: 'post',
    path,
    tag,
    summary: docs.create,
    ...(docs.createDescription ? { description: docs.createDescription } : {}),
    body: schemas.create,
    success: { status: 201, description: docs.created, schema: schemas.source },
    errors: ['plan_limit_reached', 'already_exists'],
    handler: ({ auth, body }) => service.create(auth.userId, body),
  });
  api.route({
    method: 'patch',
    path: `${path}/{id}`,
    tag,
    summary: docs.patch,
    params: schemas.idParams,
    body: schemas.patch ?? sourcePatchSchema,
    success: { status: 200, description: docs.patched, schema: schemas.source },
    errors: ['not_found', 'plan_limit_reached'],
    handler: ({ auth, params, body }) => service.update(auth.userId, params.id, body),
  });
  api.route({
    method: 'post',
    path: `${path}/{id}/preview`,
    tag,
    summary: 'Try filters on the posts this source already detected for the account, before saving them.',
    description:
      `Reads the newest ${PREVIEW_EXAMINED} posts stored from this source and answers the newest ${PREVIEW_SHOWN} that the given ` +
      'filters would have passed, judged on what each post and its author showed when it was detected. Changes nothing.',
    params: schemas.idParams,
    body: filterPreviewBodySchema,
    success: { status: 200, description: 'The posts that would have passed.', schema: filterPreviewSchema },
    errors: ['not_found'],
    handler: ({ auth, params, body }) => service.preview(auth.userId, params.id, body.filters),
  });
  api.route({
    method: 'delete',
    path: `${path}/{id}`,
    tag,
    summary: docs.remove,
    params: schemas.idParams,
    success: { status: 200, description: docs.removed, schema: deletedSchema },
    errors: ['not_found'],
    handler: async ({ auth, params }) => {
      await service.remove(auth.userId, params.id);
      return { id: params.id, deleted: true as const };
    },
  });
}
