import axios from 'axios';
import { z } from 'zod';
import type { Logger } from '@hashwatch/logger';
import { XInvalidResponseError, XUnavailableError } from './x-errors';
import type { XEndpointName } from './x-endpoints';

/** A batch compliance job as X describes it (GET /2/compliance/jobs/:id). */
export interface XComplianceJob {
  id: string;
  /** `created` (waiting for the upload), `in_progress`, `complete`, `failed` or `expired`. */
  status: 'created' | 'in_progress' | 'complete' | 'failed' | 'expired' | (string & {});
  uploadUrl: string;
  uploadExpiresAt: string | null;
  downloadUrl: string;
  downloadExpiresAt: string | null;
  createdAt: string | null;
}

/** One line of a job's results: an id X asks to be acted on. Ids without an event are not listed. */
export interface XComplianceEvent {
  id: string;
  /** `delete` for every reason X names today. */
  action: string;
  /** `deleted`, `protected`, `suspended`, `scrub_geo`, `bounced`, `deactivated`… */
  reason: string;
  createdAt: string | null;
  redactedAt: string | null;
}

export interface XComplianceResults {
  events: XComplianceEvent[];
  /** Lines that were not a readable event (logged, skipped). */
  malformedLines: number;
}

const jobSchema = z.object({
  id: z.string().regex(/^[0-9]{1,19}$/),
  status: z.string().min(1),
  upload_url: z.string().url(),
  upload_expires_at: z.string().optional(),
  download_url: z.string().url(),
  download_expires_at: z.string().optional(),
  created_at: z.string().optional(),
});

export const complianceJobResponseSchema = z.object({ data: jobSchema });

const eventSchema = z.object({
  id: z.string().regex(/^[0-9]{1,19}$/),
  action: z.string().min(1),
  reason: z.string().default('unknown'),
  created_at: z.string().optional(),
  redacted_at: z.string().optional(),
});

export function normalizeComplianceJob(body: z.infer<typeof complianceJobResponseSchema>): XComplianceJob {
  const job = body.data;
  return {
    id: job.id,
    status: job.status,
    uploadUrl: job.upload_url,
    uploadExpiresAt: job.upload_expires_at ?? null,
    downloadUrl: job.download_url,
    downloadExpiresAt: job.download_expires_at ?? null,
    createdAt: job.created_at ?? null,
  };
}

/** X's largest compliance upload we send at once; X documents no hard cap below it for post ids. */
export const COMPLIANCE_MAX_IDS = 100_000;
// A result file lists only the ids with events: 100,000 ids at ~150 bytes a line is 15 MB at the very worst.
const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

/**
 * The signed storage addresses of a job (upload and download): plain HTTPS outside api.x.com, with no bearer
 * token (the signature in the address is the credential). Only http(s) addresses are followed, never a redirect.
 */
export function complianceStorage(options: { timeoutMs: number; logger: Logger }) {
  const endpoint: XEndpointName = 'compliance_jobs_read';
  const log = options.logger.child({ component: 'x-api', endpoint: 'compliance_storage' });
  const http = axios.create({ timeout: options.timeoutMs, validateStatus: () => true, maxRedirects: 0, maxContentLength: MAX_DOWNLOAD_BYTES, responseType: 'text', transitional: { clarifyTimeoutError: true } });
  const checked = (url: string) => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new XInvalidResponseError({ endpoint, status: 200 }, 'a compliance address that is not http(s)');
    return parsed.toString();
  };
  const request = async (what: string, run: () => Promise<{ status: number; data: unknown }>) => {
    let response: { status: number; data: unknown };
    try {
      response = await run();
    } catch (error) {
      const timedOut = axios.isAxiosError(error) && (error.code === 'ETIMEDOUT' || error.code === 'ECONNABORTED');
      log.warn('x compliance storage unreachable', { what, error: (error as Error).message });
      throw new XUnavailableError({ endpoint, status: null }, timedOut ? 'timeout' : 'network', (error as Error).message);
    }
    if (response.status < 200 || response.status >= 300) {
      log.warn('x compliance storage refused', { what, status: response.status });
      throw new XUnavailableError({ endpoint, status: response.status }, 'server_error', `the compliance ${what} answered ${response.status}`);
    }
    return response;
  };
  return {
    /** PUTs the ids, one per line, as X's quick start does (text/plain). */
    async upload(job: XComplianceJob, ids: readonly string[]): Promise<void> {
      const url = checked(job.uploadUrl);
      await request('upload', () => http.put(url, `${ids.join('\n')}\n`, { headers: { 'Content-Type': 'text/plain' } }));
    },
    /** GETs the results: one JSON object per line; unreadable lines are counted and skipped. */
    async download(job: XComplianceJob): Promise<XComplianceResults> {
      const url = checked(job.downloadUrl);
      const response = await request('download', () => http.get(url, { headers: { Accept: '*/*' } }));
      const events: XComplianceEvent[] = [];
      let malformedLines = 0;
      for (const line of String(response.data).split('\n')) {
        if (line.trim() === '') continue;
        let parsed;
        try {
          parsed = eventSchema.safeParse(JSON.parse(line));
        } catch {
          parsed = null;
        }
        if (!parsed?.success) {
          malformedLines += 1;
          continue;
        }
        const event = parsed.data;
        events.push({ id: event.id, action: event.action, reason: event.reason, createdAt: event.created_at ?? null, redactedAt: event.redacted_at ?? null });
      }
      if (malformedLines > 0) log.warn('x compliance results partly unreadable', { jobId: job.id, malformedLines });
      return { events, malformedLines };
    },
  };
}
