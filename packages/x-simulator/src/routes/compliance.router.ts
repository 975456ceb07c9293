import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { endpoint, type ServedAnswer } from '../http/endpoint-pipeline';
import type { SimComplianceJob } from '../compliance/compliance-jobs';
import type { SimulatorState } from '../simulator-state';

const createBody = z.object({ type: z.enum(['tweets', 'users']), name: z.string().max(64).optional(), resumable: z.boolean().optional() }).strict();
const iso = (ms: number) => new Date(ms).toISOString();
const originOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

function jobBody(state: SimulatorState, job: SimComplianceJob, origin: string): Record<string, unknown> {
  return {
    data: {
      id: job.id,
      type: job.type,
      ...(job.name !== null ? { name: job.name } : {}),
      resumable: false,
      status: job.status,
      created_at: iso(job.createdAt),
      upload_url: state.compliance.addressOf(job, origin, 'upload'),
      upload_expires_at: iso(job.uploadExpiresAt),
      download_url: state.compliance.addressOf(job, origin, 'download'),
      download_expires_at: iso(job.downloadExpiresAt),
    },
  };
}

function create(state: SimulatorState, req: Request): ServedAnswer {
  const invalid = (message: string) => state.problems.invalidRequest([{ parameters: {}, message }]);
  let json: unknown;
  try {
    json = JSON.parse(typeof req.body === 'string' && req.body.trim() !== '' ? req.body : '{}');
  } catch {
    return invalid('The request body is not valid JSON');
  }
  const body = createBody.safeParse(json);
  if (!body.success) {
    const issue = body.error.issues[0];
    return invalid(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
  }
  const job = state.compliance.create(body.data.type, body.data.name ?? null);
  if (!job) return invalid(`A ${body.data.type} compliance job is already in progress: one job per type at a time`);
  return { status: 200, body: jobBody(state, job, originOf(req)) };
}

function read(state: SimulatorState, req: Request): ServedAnswer {
  const id = String(req.params.id);
  if (!/^[0-9]{1,19}$/.test(id)) return state.problems.invalidRequest([{ parameters: { id: [id] }, message: `The \`id\` query parameter value [${id}] does not match ^[0-9]{1,19}$` }]);
  const job = state.compliance.get(id);
  if (!job) return { status: 200, body: { errors: [state.problems.resourceNotFound('tweet', 'id', id)] } };
  return { status: 200, body: jobBody(state, job, originOf(req)) };
}

/**
 * X's batch compliance: POST /2/compliance/jobs and GET /2/compliance/jobs/:id (app-only), and the signed storage
 * addresses a job names (`/_storage/compliance/:id/upload|download?signature=`), which take no bearer token.
 */
export function complianceRouter(state: SimulatorState): Router {
  const router = Router();
  router.post('/2/compliance/jobs', express.text({ type: () => true, limit: '64kb' }), endpoint('compliance_jobs_create', state, (req) => create(state, req), { appOnly: true }));
  router.get('/2/compliance/jobs/:id', endpoint('compliance_jobs_read', state, (req) => read(state, req), { appOnly: true }));
  router.put('/_storage/compliance/:id/upload', express.text({ type: () => true, limit: '10mb' }), (req, res) => {
    const outcome = state.compliance.upload(String(req.params.id), String(req.query.signature ?? ''), typeof req.body === 'string' ? req.body : '');
    if (outcome === 'ok') res.status(200).end();
    else res.status(403).type('application/xml').send(`<Error><Code>${outcome === 'expired' ? 'ExpiredToken' : 'SignatureDoesNotMatch'}</Code></Error>`);
  });
  router.get('/_storage/compliance/:id/download', (req, res) => {
    const outcome = state.compliance.download(String(req.params.id), String(req.query.signature ?? ''));
    if (outcome.status === 'ok') res.status(200).type('text/plain').send(outcome.body);
    else res.status(outcome.status === 'not_ready' ? 404 : 403).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>');
  });
  return router;
}
