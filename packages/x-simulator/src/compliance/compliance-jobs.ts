import { randomBytes } from 'node:crypto';
import type { SimStore } from '../store/sim-store';

/**
 * X's batch compliance (docs.x.com, x-api/compliance/batch-compliance): a job is created through the API, its ids
 * are PUT as text (one a line) to a signed upload address that expires after 15 minutes, X processes it, and the
 * results are read from a signed download address (one JSON object a line, only the ids X acts on), which
 * expires a week after the job was created. One job per app and type at a time.
 *
 * The signed addresses here are the simulator's own `/_storage/compliance/...` paths with a random signature:
 * what a client must treat as a credential. A job completes `processingMs` after its upload, as seen by the next
 * read of its status; its results are what the store says then: a post X no longer has is `deleted`, a post whose
 * author is protected is `protected`.
 */
export type ComplianceStatus = 'created' | 'in_progress' | 'complete' | 'failed' | 'expired';

export interface SimComplianceJob {
  id: string;
  type: 'tweets' | 'users';
  name: string | null;
  status: ComplianceStatus;
  createdAt: number;
  uploadExpiresAt: number;
  downloadExpiresAt: number;
  signature: string;
  /** The uploaded ids, once uploaded. */
  ids: string[] | null;
  uploadedAt: number | null;
  /** The result lines, computed when the job completes. */
  results: string | null;
}

const UPLOAD_TTL_MS = 15 * 60_000;
const DOWNLOAD_TTL_MS = 7 * 24 * 3600_000;

export class ComplianceJobs {
  private readonly jobs = new Map<string, SimComplianceJob>();
  private nextId = 1_900_000_000_000_000_000n;
  /** How long X takes to process an uploaded job. */
  processingMs = 0;
  /** Makes the next job X completes fail instead (a test's lever). */
  failNext = false;

  constructor(
    private readonly store: SimStore,
    private readonly now: () => number,
  ) {}

  /** Null when a job of that type is still open: X allows one at a time. */
  create(type: 'tweets' | 'users', name: string | null): SimComplianceJob | null {
    const open = [...this.jobs.values()].some((job) => job.type === type && (job.status === 'created' || job.status === 'in_progress'));
    if (open) return null;
    this.nextId += 1n + BigInt(Math.floor(Math.random() * 1000));
    const at = this.now();
    const job: SimComplianceJob = {
      id: String(this.nextId), type, name, status: 'created', createdAt: at, uploadExpiresAt: at + UPLOAD_TTL_MS,
      downloadExpiresAt: at + DOWNLOAD_TTL_MS, signature: randomBytes(16).toString('hex'), ids: null, uploadedAt: null, results: null,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** The job as of now: an upload past its address's expiry expires it, a processed one completes. */
  get(id: string): SimComplianceJob | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const at = this.now();
    if (job.status === 'created' && at > job.uploadExpiresAt) job.status = 'expired';
    if (job.status === 'in_progress' && job.uploadedAt !== null && at >= job.uploadedAt + this.processingMs) this.finish(job);
    return job;
  }

  /** The PUT to the upload address; false when the address is wrong or expired. */
  upload(id: string, signature: string, body: string): 'ok' | 'forbidden' | 'expired' {
    const job = this.jobs.get(id);
    if (!job || job.signature !== signature) return 'forbidden';
    if (job.status !== 'created' || this.now() > job.uploadExpiresAt) return 'expired';
    job.ids = body.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
    job.uploadedAt = this.now();
    job.status = 'in_progress';
    return 'ok';
  }

  /** The GET of the download address: the results once complete. */
  download(id: string, signature: string): { status: 'ok'; body: string } | { status: 'forbidden' | 'not_ready' } {
    const job = this.get(id);
    if (!job || job.signature !== signature || this.now() > job.downloadExpiresAt) return { status: 'forbidden' };
    if (job.status !== 'complete' || job.results === null) return { status: 'not_ready' };
    return { status: 'ok', body: job.results };
  }

  addressOf(job: SimComplianceJob, origin: string, what: 'upload' | 'download'): string {
    return `${origin}/_storage/compliance/${job.id}/${what}?signature=${job.signature}`;
  }

  private finish(job: SimComplianceJob): void {
    if (this.failNext) {
      this.failNext = false;
      job.status = 'failed';
      return;
    }
    const at = new Date(this.now()).toISOString();
    const lines: string[] = [];
    for (const id of job.ids ?? []) {
      if (job.type !== 'tweets') continue;
      const post = this.store.post(id);
      const author = post ? this.store.userById(post.authorId) : undefined;
      const reason = !post ? 'deleted' : author?.protected ? 'protected' : null;
      if (reason === null) continue;
      const createdAt = post ? new Date(post.createdAt).toISOString() : at;
      lines.push(JSON.stringify({ id, action: 'delete', created_at: createdAt, redacted_at: at, reason }));
    }
    job.results = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    job.status = 'complete';
  }
}
