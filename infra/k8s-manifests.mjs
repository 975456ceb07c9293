// What infra/k8s.test.mjs checks the Kubernetes manifests (infra/k8s/) against: the rendered documents, the
// kubernetes-models / @kubernetes-models/keda class of each (the official JSON schemas, through ajv, offline),
// and what the code says each app needs: its shutdown bound, its health port, the variables its config
// schema requires, the queues it works.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './workspaces.mjs';

export const K8S_DIR = path.join(ROOT, 'infra', 'k8s');
/** The Secret the operator creates; every manifest refers to it and none carries it. */
export const SECRET_NAME = 'hashwatch-secrets';
/** The long-running apps a cluster runs (x-sim and alert-inbox are development tools). */
export const APPS = ['gateway', 'scanner', 'engagement-poller', 'notifier'];
export const WORKERS = APPS.filter((app) => app !== 'gateway');

/** Each worker's queues whose ready jobs are its backlog. outbox-relay is a scheduler tick (one job at a
 * time, concurrency 1) that the notifier runs, and maintenance the scanner's retention sweep
 * every few minutes: neither backlog ever says more replicas help. */
export const WORKER_QUEUES = {
  scanner: ['source-scans'],
  'engagement-poller': ['engagement-refreshes'],
  notifier: ['alert-routing', 'alert-deliveries'],
};
export const UNSCALED_QUEUES = ['outbox-relay', 'maintenance'];
/** Workers whose queues hold scheduler ticks, never a backlog: they scale on how late their ticks start. */
export const LATENESS_SCALED = ['scanner'];

const read = (relative) => readFileSync(path.join(ROOT, relative), 'utf8');

/** `kubectl kustomize <dir>`: the rendered documents as plain objects. Throws with kubectl's stderr. */
export function render(kubectl, dir) {
  const result = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.error) throw new Error(`cannot run ${kubectl}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`kubectl kustomize ${path.relative(ROOT, dir)} failed (exit ${result.status}): ${result.stderr.trim()}`);
  return parseAllDocuments(result.stdout).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed bad YAML: ${doc.errors[0].message}`);
    return doc.toJS();
  }).filter((doc) => doc != null);
}

// apiVersion → the module that holds its kinds. Anything else is an unknown kind, and fails.
const MODULES = {
  v1: () => import('kubernetes-models/v1'),
  'apps/v1': () => import('kubernetes-models/apps/v1'),
  'batch/v1': () => import('kubernetes-models/batch/v1'),
  'policy/v1': () => import('kubernetes-models/policy/v1'),
  'autoscaling/v2': () => import('kubernetes-models/autoscaling/v2'),
  'keda.sh/v1alpha1': () => import('@kubernetes-models/keda/keda.sh/v1alpha1'),
};

/** Validates one document against its kind's schema; throws naming the document and the schema errors. */
export async function validateDocument(doc) {
  const label = `${doc?.apiVersion}/${doc?.kind} ${doc?.metadata?.name}`;
  const load = Object.hasOwn(MODULES, doc?.apiVersion) ? MODULES[doc.apiVersion] : undefined;
  if (!load) throw new Error(`${label}: no schema for apiVersion ${doc?.apiVersion}`);
  const models = await load();
  const Model = Object.hasOwn(models, doc.kind) ? models[doc.kind] : undefined;
  if (typeof Model !== 'function' || Model.kind !== doc.kind || Model.apiVersion !== doc.apiVersion) {
    throw new Error(`${label}: no schema for kind ${doc.kind} in ${doc.apiVersion}`);
  }
  try {
    new Model(doc).validate();
  } catch (error) {
    throw new Error(`${label} does not match its schema: ${error.message}`, { cause: error });
  }
}

/** The one document of `kind` named `name`; throws when there is none or more than one. */
export function only(docs, kind, name) {
  const found = docs.filter((doc) => doc.kind === kind && doc.metadata?.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0];
}

/** A number literal as the code writes it (`10_000`). */
const number = (text) => Number(text.replaceAll('_', ''));

/** The shutdown bound of `app` in ms: the timeoutMs its main.ts passes to createShutdown, or the lifecycle default. */
export function shutdownTimeoutMs(app) {
  const main = read(`apps/${app}/src/main.ts`);
  const call = /createShutdown\(\{([^}]*)\}\)/.exec(main);
  if (!call) throw new Error(`apps/${app}/src/main.ts does not call createShutdown({...})`);
  const own = /timeoutMs:\s*([\d_]+)/.exec(call[1]);
  if (own) return number(own[1]);
  const fallback = /options\.timeoutMs \?\? ([\d_]+)/.exec(read('packages/lifecycle/src/shutdown.ts'));
  if (!fallback) throw new Error('packages/lifecycle/src/shutdown.ts has no default timeoutMs');
  return number(fallback[1]);
}

/** The port a worker serves its health server on without HEALTH_PORT (DEFAULT_HEALTH_PORT in its main.ts). */
export function defaultHealthPort(app) {
  const match = /const DEFAULT_HEALTH_PORT = (\d+);/.exec(read(`apps/${app}/src/main.ts`));
  if (!match) throw new Error(`apps/${app}/src/main.ts has no DEFAULT_HEALTH_PORT`);
  return Number(match[1]);
}

/** The gateway's port without PORT (its default in packages/config). */
export function defaultGatewayPort() {
  const match = /PORT: envPort\.default\((\d+)\)/.exec(read('packages/config/src/config.ts'));
  if (!match) throw new Error('packages/config/src/config.ts has no PORT default');
  return Number(match[1]);
}

/** The end of the value that starts at `from`: the first `,` or closing bracket outside brackets and strings. */
function valueEnd(text, from) {
  let depth = 0;
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (char === "'" || char === '"' || char === '`') {
      index = text.indexOf(char, index + 1);
      if (index < 0) return text.length;
    } else if ('([{'.includes(char)) depth += 1;
    else if (')]}'.includes(char)) {
      if (depth === 0) return index;
      depth -= 1;
    } else if (char === ',' && depth === 0) return index;
  }
  return text.length;
}

/** The variables a zod object literal in `source` declares: name → required (neither .default nor .optional). */
function declaredVariables(source) {
  const variables = new Map();
  for (const match of source.matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(?=\S)/gm)) {
    const start = match.index + match[0].length;
    const value = source.slice(start, valueEnd(source, start));
    variables.set(match[1], !/\.(default|optional)\(/.test(value));
  }
  return variables;
}

// The files whose schemas each process reads its environment with, in `extend` order (later wins).
const CONFIG_SOURCES = {
  gateway: ['packages/config/src/config.ts', 'packages/mail/src/mail-config.ts', 'apps/gateway/src/gateway-config.ts'],
  scanner: ['packages/config/src/config.ts', 'apps/scanner/src/scanner-config.ts'],
  'engagement-poller': ['packages/config/src/config.ts', 'apps/engagement-poller/src/poller-config.ts'],
  notifier: ['packages/config/src/config.ts', 'apps/notifier/src/notifier-config.ts'],
  migrate: ['packages/config/src/config.ts'],
};

/** The variables `app`'s config schema reads: name → required. */
export function appVariables(app) {
  const variables = new Map();
  for (const file of CONFIG_SOURCES[app]) for (const [name, required] of declaredVariables(read(file))) variables.set(name, required);
  return variables;
}

/** What a cluster must set for `app`: what its schema requires, and the connections whose defaults are localhost. */
export function variablesNeededInCluster(app) {
  const needed = [...appVariables(app)].filter(([, required]) => required).map(([name]) => name);
  return [...new Set([...needed, 'DATABASE_URL', 'REDIS_URL'])];
}

/** Every queue name packages/queues declares. */
export function queueNames() {
  const list = /export const queueNames = \[([^\]]*)\]/.exec(read('packages/queues/src/queue-catalog.ts'));
  if (!list) throw new Error('packages/queues/src/queue-catalog.ts has no queueNames');
  return [...list[1].matchAll(/'([^']+)'/g)].map((match) => match[1]);
}

/** docs/OPERATIONS.md's `## Kubernetes` section. */
export function operationsKubernetes() {
  const operations = read('docs/OPERATIONS.md');
  const start = operations.indexOf('\n## Kubernetes\n');
  if (start < 0) throw new Error('docs/OPERATIONS.md has no ## Kubernetes section');
  const end = operations.slice(start + 1).search(/\n##? /);
  return end < 0 ? operations.slice(start) : operations.slice(start, start + 1 + end);
}

/** The keys the `kubectl create secret generic hashwatch-secrets` command of docs/OPERATIONS.md sets. */
export function documentedSecretKeys(section) {
  const command = new RegExp(`kubectl create secret generic ${SECRET_NAME}((?:[^\\n]*\\\\\\n)*[^\\n]*)`).exec(section);
  if (!command) throw new Error(`docs/OPERATIONS.md does not show \`kubectl create secret generic ${SECRET_NAME}\``);
  return [...command[1].matchAll(/--from-literal=([A-Z][A-Z0-9_]*)=/g)].map((match) => match[1]);
}

/** The value the documented create-secret command gives `key` (`--from-literal=KEY='value'`), or undefined. */
export function documentedSecretValue(section, key) {
  const match = new RegExp(`--from-literal=${key}=(?:'([^']*)'|"([^"]*)"|(\\S*))`).exec(section);
  return match ? match[1] ?? match[2] ?? match[3] : undefined;
}

/** The most replicas `app` runs: its HPA's maxReplicas or its ScaledObject's maxReplicaCount, else its replicas. */
export function maxReplicas(docs, app) {
  const hpa = docs.find((doc) => doc.kind === 'HorizontalPodAutoscaler' && doc.spec.scaleTargetRef.name === app);
  if (hpa) return hpa.spec.maxReplicas;
  const scaled = docs.find((doc) => doc.kind === 'ScaledObject' && doc.spec.scaleTargetRef.name === app);
  if (scaled) return scaled.spec.maxReplicaCount;
  return only(docs, 'Deployment', app).spec.replicas ?? 1;
}

/** The variables docker-compose.yml passes to every app (its x-env block). */
export function composeEnvNames(compose) {
  return Object.keys(compose['x-env'] ?? {});
}

/** Every container of a pod template (init containers too). */
export const containersOf = (doc) => [...(doc.spec.template.spec.initContainers ?? []), ...doc.spec.template.spec.containers];
