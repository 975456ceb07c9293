import type { z } from 'zod';
import { findJobDefinition, type JobDefinition } from './queue-catalog';

/** A job name the catalog does not declare for that queue. */
export class UnknownJobError extends Error {
  constructor(
    readonly queueName: string,
    readonly jobName: string,
  ) {
    super(`queue ${queueName} has no job named ${jobName}`);
    this.name = 'UnknownJobError';
  }
}

/** A payload that does not match its job's schema. The message lists paths and rules, never values. */
export class JobPayloadError extends Error {
  constructor(
    readonly queueName: string,
    readonly jobName: string,
    readonly issues: string[],
  ) {
    super(`payload of ${queueName}/${jobName} is invalid: ${issues.join('; ')}`);
    this.name = 'JobPayloadError';
  }
}

function describeIssue(issue: z.ZodError['issues'][number]): string {
  const path = issue.path.map(String).join('.');
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/**
 * Looks the job up in the catalog and parses its payload.
 * Throws {@link UnknownJobError} or {@link JobPayloadError}.
 */
export function parseJobPayload(
  queueName: string,
  jobName: string,
  payload: unknown,
): { definition: JobDefinition; data: unknown } {
  const definition = findJobDefinition(queueName, jobName);
  if (!definition) throw new UnknownJobError(queueName, jobName);
  const parsed = definition.payload.safeParse(payload);
  if (!parsed.success) throw new JobPayloadError(queueName, jobName, parsed.error.issues.map(describeIssue));
  return { definition, data: parsed.data };
}
