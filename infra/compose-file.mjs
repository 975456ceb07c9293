// docker-compose.yml as compose reads it (YAML merge keys resolved), for the tests that check it scales.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './workspaces.mjs';

export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

export function readCompose() {
  return parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true });
}

/**
 * Why `docker compose up --scale <service>=N` cannot run N copies of a service, or [] when it can: a fixed
 * container_name, or a fixed host port (which the second replica cannot bind).
 */
export function scalingProblems(service, definition) {
  const problems = [];
  if (definition.container_name) problems.push(`${service} has container_name ${definition.container_name}`);
  for (const port of definition.ports ?? []) {
    const published = typeof port === 'object' ? port.published : /^(?:.*:)?([^:]+):[^:]+$/.exec(String(port))?.[1];
    if (published !== undefined && published !== '') problems.push(`${service} publishes host port ${published}`);
  }
  return problems;
}
