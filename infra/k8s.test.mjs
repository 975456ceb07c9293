// npm run test:infra -- infra/k8s.test.mjs  (npm test runs it, with KUBECTL from infra/kubectl.mjs)
// Renders infra/k8s/ (the base and the production overlay) with `kubectl kustomize`, offline, validates every
// document against the Kubernetes and KEDA schemas, and checks the manifests against what the code says.
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  APPS, appVariables, composeEnvNames, containersOf, defaultGatewayPort, defaultHealthPort, K8S_DIR, maxReplicas, only, queueNames,
  LATENESS_SCALED, operationsKubernetes, documentedSecretKeys, documentedSecretValue, render, SECRET_NAME, shutdownTimeoutMs, UNSCALED_QUEUES, validateDocument,
  variablesNeededInCluster, WORKER_QUEUES, WORKERS,
} from './k8s-manifests.mjs';
import { readCompose } from './compose-file.mjs';
import { appPools, ONE_OFF_CONNECTIONS, parseIni, POSTGRES_USABLE_CONNECTIONS } from './pgbouncer-config.mjs';
import { kubectlPlan } from './kubectl.mjs';

const plan = kubectlPlan();
if (plan.action !== 'use') throw new Error(plan.action === 'fail' ? plan.message : 'kubectl is missing: run `npm test`, which installs it, or install kubectl');
const KUBECTL = plan.path;

const KUSTOMIZATIONS = { base: path.join(K8S_DIR, 'base'), production: path.join(K8S_DIR, 'overlays', 'production') };

/** The seconds a pod's preStop hook sleeps before SIGTERM (`sleep N`), or 0. */
function preStopSeconds(container) {
  const command = container.lifecycle?.preStop?.exec?.command ?? [];
  return command[0] === 'sleep' ? Number(command[1]) : 0;
}

/** The containerPort a probe's port (a name or a number) points at, or undefined when the container declares none. */
function probedPort(container, probe) {
  const port = probe?.httpGet?.port;
  const declared = container.ports ?? [];
  return (typeof port === 'string' ? declared.find((entry) => entry.name === port) : declared.find((entry) => entry.containerPort === port))?.containerPort;
}

const envValue = (container, name) => container.env?.find((entry) => entry.name === name)?.value;
const envSecretKey = (container, name) => container.env?.find((entry) => entry.name === name)?.valueFrom?.secretKeyRef?.key;
const matches = (selector, labels) => Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);

/** Renders documents that each match the Kubernetes or KEDA schema of their kind. */
async function checkSchemas({ docs }) {
  assert.ok(docs.length > 0);
  for (const doc of docs) await validateDocument(doc);
}

/** Runs each app as one Deployment with both probes on a port it declares, resources and a hardened container. */
function checkDeployments({ docs }) {
  for (const app of APPS) {
    const deployment = only(docs, 'Deployment', app);
    const [container, ...others] = containersOf(deployment);
    assert.equal(others.length, 0, `${app}: one container`);
    assert.equal(envValue(container, 'APP'), app, `${app}: APP picks the app in infra/Dockerfile's image`);
    const port = app === 'gateway' ? Number(envValue(container, 'PORT') ?? defaultGatewayPort()) : Number(envValue(container, 'HEALTH_PORT') ?? defaultHealthPort(app));
    assert.equal(container.livenessProbe?.httpGet?.path, '/healthz', `${app}: liveness on /healthz`);
    assert.equal(container.readinessProbe?.httpGet?.path, '/readyz', `${app}: readiness on /readyz`);
    assert.equal(probedPort(container, container.livenessProbe), port, `${app}: liveness on the port the app listens on`);
    assert.equal(probedPort(container, container.readinessProbe), port, `${app}: readiness on the port the app listens on`);
    if (container.startupProbe) assert.equal(probedPort(container, container.startupProbe), port, `${app}: start-up probe on the app's port`);
    const annotations = deployment.spec.template.metadata.annotations ?? {};
    assert.equal(annotations['prometheus.io/port'], String(port), `${app}: Prometheus scrapes /metrics on the app's port`);
    assert.equal(annotations['prometheus.io/path'], '/metrics');
    for (const resource of ['cpu', 'memory']) assert.ok(container.resources?.requests?.[resource], `${app}: requests ${resource}`);
    assert.ok(container.resources?.limits?.memory, `${app}: a memory limit`);
    assert.equal(deployment.spec.replicas, undefined, `${app}: its autoscaler owns the replica count`);
    const pod = deployment.spec.template.spec;
    assert.equal(pod.securityContext?.runAsNonRoot, true, `${app}: non-root`);
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true, `${app}: read-only root filesystem`);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext?.capabilities?.drop, ['ALL']);
  }
}

/** Gives each app a grace period covering its preStop pause and its own shutdown bound. */
function checkGracePeriods({ docs }) {
  for (const app of APPS) {
    const deployment = only(docs, 'Deployment', app);
    const [container] = containersOf(deployment);
    const grace = deployment.spec.template.spec.terminationGracePeriodSeconds;
    const needed = preStopSeconds(container) + shutdownTimeoutMs(app) / 1000;
    assert.ok(grace > needed, `${app}: terminationGracePeriodSeconds ${grace} must exceed ${needed} s`);
  }
  const gateway = containersOf(only(docs, 'Deployment', 'gateway'))[0];
  assert.ok(preStopSeconds(gateway) > 0, 'the gateway pauses before SIGTERM so endpoints drop it first');
}

/** Scales every worker with exactly one ScaledObject on its own queues' backlog. */
function checkScaledObjects({ docs }) {
  const scaled = docs.filter((doc) => doc.kind === 'ScaledObject');
  const covered = new Set();
  for (const worker of WORKERS) {
    const mine = scaled.filter((doc) => doc.spec.scaleTargetRef.name === worker);
    assert.equal(mine.length, 1, `${worker}: one ScaledObject`);
    const { spec } = mine[0];
    assert.ok(spec.minReplicaCount >= 1, `${worker}: never scaled to zero`);
    assert.ok(spec.maxReplicaCount > spec.minReplicaCount, `${worker}: room to scale`);
    assert.equal(spec.triggers.length, 1);
    const [trigger] = spec.triggers;
    assert.equal(trigger.type, 'prometheus');
    assert.match(trigger.metadata.serverAddress, /^https?:\/\/\S+$/);
    const queues = LATENESS_SCALED.includes(worker)
      ? /^histogram_quantile\(0\.9, sum by \(le\) \(rate\(hashwatch_queue_job_wait_seconds_bucket\{queue="([^"|]+)"\}\[5m\]\)\)\)$/.exec(trigger.metadata.query)
      : /hashwatch_queue_jobs\{queue=~"([^"]+)",state=~"waiting\|prioritized"\}/.exec(trigger.metadata.query);
    assert.ok(queues, `${worker}: the query reads its ticks' lateness, or counts ready jobs of hashwatch_queue_jobs`);
    assert.deepEqual(queues[1].split('|').sort(), [...WORKER_QUEUES[worker]].sort(), `${worker}: the query names its queues`);
    for (const queue of queues[1].split('|')) covered.add(queue);
    assert.ok(Number(trigger.metadata.threshold) > 0);
  }
  assert.equal(scaled.length, WORKERS.length, 'no ScaledObject for anything else');
  assert.deepEqual([...covered, ...UNSCALED_QUEUES].sort(), queueNames().sort(), 'every queue is some worker\'s backlog, or deliberately not');
}

/** Autoscales the gateway with an HPA and guards every app with a PodDisruptionBudget matching it. */
function checkHpaAndBudgets({ docs }) {
  const hpas = docs.filter((doc) => doc.kind === 'HorizontalPodAutoscaler');
  assert.deepEqual(hpas.map((doc) => doc.spec.scaleTargetRef), [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' }]);
  assert.ok(hpas[0].spec.minReplicas >= 2, 'two gateways at least, so one can be drained');
  const deployments = docs.filter((doc) => doc.kind === 'Deployment');
  for (const app of APPS) {
    const deployment = only(deployments, 'Deployment', app);
    const budgets = docs.filter((doc) => doc.kind === 'PodDisruptionBudget' && matches(doc.spec.selector, deployment.spec.template.metadata.labels));
    assert.equal(budgets.length, 1, `${app}: one PodDisruptionBudget`);
    const selected = deployments.filter((other) => matches(budgets[0].spec.selector, other.spec.template.metadata.labels));
    assert.deepEqual(selected.map((other) => other.metadata.name), [app], `${app}: its budget selects its pods only`);
    assert.ok(matches(deployment.spec.selector, deployment.spec.template.metadata.labels));
  }
}

/** Runs the migration as a Job of the same image with APP=migrate. */
function checkMigrationJob({ docs }) {
  const job = only(docs, 'Job', 'migrate');
  const [container] = containersOf(job);
  assert.equal(envValue(container, 'APP'), 'migrate');
  assert.equal(container.image, containersOf(only(docs, 'Deployment', 'gateway'))[0].image);
  assert.equal(job.spec.template.spec.restartPolicy, 'Never');
}

/** Refers to the operator's Secret and never carries one. */
function checkSecretRefs({ docs }) {
  for (const doc of docs.filter((entry) => entry.kind === 'Secret')) {
    assert.equal(Object.keys({ ...doc.data, ...doc.stringData }).length, 0, `Secret ${doc.metadata.name} carries values`);
  }
  const configMapNames = new Set(docs.filter((doc) => doc.kind === 'ConfigMap').map((doc) => doc.metadata.name));
  for (const doc of docs.filter((entry) => entry.spec?.template?.spec?.containers)) {
    for (const container of containersOf(doc)) {
      for (const source of container.envFrom ?? []) {
        if (source.secretRef) assert.equal(source.secretRef.name, SECRET_NAME);
        if (source.configMapRef) assert.ok(configMapNames.has(source.configMapRef.name), `${doc.metadata.name}: ConfigMap ${source.configMapRef.name} is rendered`);
      }
      for (const entry of container.env ?? []) {
        if (entry.valueFrom?.secretKeyRef) assert.equal(entry.valueFrom.secretKeyRef.name, SECRET_NAME);
      }
    }
  }
}

/** Gives each app every variable it needs from the ConfigMap or the documented Secret keys. */
function checkEnvironment({ docs, configKeys }) {
  const secretKeys = new Set(documentedSecretKeys(operationsKubernetes()));
  // The image's apps (APP picks one); PgBouncer reads only DATABASE_DIRECT_URL (checkPgbouncer).
  for (const doc of docs.filter((entry) => (entry.kind === 'Deployment' || entry.kind === 'Job') && envValue(containersOf(entry)[0], 'APP'))) {
    const [container] = containersOf(doc);
    const app = envValue(container, 'APP');
    const fromSecret = (container.envFrom ?? []).some((source) => source.secretRef?.name === SECRET_NAME);
    assert.ok(fromSecret, `${app}: reads the Secret`);
    const own = new Set((container.env ?? []).map((entry) => entry.name));
    for (const variable of variablesNeededInCluster(app)) {
      assert.ok(configKeys.has(variable) || secretKeys.has(variable) || own.has(variable), `${app}: nothing sets ${variable}`);
    }
  }
  const known = new Set([...APPS, 'migrate'].flatMap((app) => [...appVariables(app).keys()]).concat(composeEnvNames(readCompose())));
  for (const key of [...configKeys, ...secretKeys]) assert.ok(known.has(key), `${key} is read by no app`);
  for (const key of secretKeys) assert.ok(!configKeys.has(key), `${key} is both in the ConfigMap and the Secret`);
}

/** PgBouncer's rendered settings (its ConfigMap's pgbouncer.ini, as its Deployment mounts it). */
function pgbouncerSettings(docs) {
  const deployment = only(docs, 'Deployment', 'pgbouncer');
  const volume = deployment.spec.template.spec.volumes.find((entry) => entry.configMap);
  return parseIni(only(docs, 'ConfigMap', volume.configMap.name).data['pgbouncer.ini']).pgbouncer;
}

/** Runs PgBouncer as replicas of its own image, probed, hardened, its settings mounted and its Service in front. */
function checkPgbouncer({ docs }) {
  const deployment = only(docs, 'Deployment', 'pgbouncer');
  const [container, ...others] = containersOf(deployment);
  assert.equal(others.length, 0);
  assert.match(container.image, /hashwatch-pgbouncer/);
  assert.ok(deployment.spec.replicas >= 2, 'two PgBouncers at least, so one can be drained');
  assert.equal(envSecretKey(container, 'DATABASE_DIRECT_URL'), 'DATABASE_DIRECT_URL', 'PgBouncer stands in front of DATABASE_DIRECT_URL');
  const port = container.ports.find((entry) => entry.name === 'postgres')?.containerPort;
  assert.equal(port, 6432);
  assert.equal(container.livenessProbe?.tcpSocket?.port, 'postgres', 'liveness does not depend on PostgreSQL');
  assert.ok(container.readinessProbe?.exec?.command?.includes('pg_isready'));
  for (const resource of ['cpu', 'memory']) assert.ok(container.resources?.requests?.[resource], `pgbouncer: requests ${resource}`);
  assert.ok(container.resources?.limits?.memory);
  assert.equal(deployment.spec.template.spec.securityContext?.runAsNonRoot, true);
  assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
  assert.deepEqual(container.securityContext?.capabilities?.drop, ['ALL']);
  const mounts = Object.fromEntries(container.volumeMounts.map((mount) => [mount.mountPath, mount.name]));
  assert.ok(mounts['/etc/hashwatch'] && mounts['/run/pgbouncer'], 'settings at /etc/hashwatch, a writable /run/pgbouncer');
  assert.equal(pgbouncerSettings(docs).pool_mode, 'transaction');
  const service = only(docs, 'Service', 'pgbouncer');
  assert.ok(matches(service.spec.selector ? { matchLabels: service.spec.selector } : {}, deployment.spec.template.metadata.labels));
  assert.deepEqual(service.spec.ports.map((entry) => [entry.port, entry.targetPort]), [[6432, 'postgres']]);
  const budgets = docs.filter((doc) => doc.kind === 'PodDisruptionBudget' && matches(doc.spec.selector, deployment.spec.template.metadata.labels));
  assert.equal(budgets.length, 1, 'pgbouncer: one PodDisruptionBudget');
  assert.ok(budgets[0].spec.minAvailable >= 1);
}

/** Migrates on PostgreSQL itself: DATABASE_URL is the Secret's DATABASE_DIRECT_URL in the Job. */
function checkMigrationDirect({ docs }) {
  const [container] = containersOf(only(docs, 'Job', 'migrate'));
  assert.equal(envSecretKey(container, 'DATABASE_URL'), 'DATABASE_DIRECT_URL');
  for (const app of APPS) assert.equal(envSecretKey(containersOf(only(docs, 'Deployment', app))[0], 'DATABASE_URL'), undefined, `${app}: DATABASE_URL from the Secret as it is`);
}

/** Sizes PgBouncer for every app's pool at the autoscalers' maximums, within PostgreSQL's max_connections. */
function checkConnectionBudget({ docs }) {
  const settings = pgbouncerSettings(docs);
  const clients = APPS.reduce((sum, app) => sum + maxReplicas(docs, app) * appPools(app).pooled, 0);
  assert.ok(Number(settings.max_client_conn) >= clients, `one PgBouncer holds all ${clients} pooled client connections (max_client_conn ${settings.max_client_conn})`);
  // A rollout's surge pod counts too: it opens its pools before the pod it replaces is gone.
  const surge = (name) => only(docs, 'Deployment', name).spec.strategy?.rollingUpdate?.maxSurge ?? 1;
  assert.equal(typeof surge('pgbouncer'), 'number');
  const pooled = (only(docs, 'Deployment', 'pgbouncer').spec.replicas + surge('pgbouncer')) * Number(settings.max_db_connections);
  const direct = APPS.reduce((sum, app) => sum + (maxReplicas(docs, app) + surge(app)) * appPools(app).direct, 0);
  const total = pooled + direct + ONE_OFF_CONNECTIONS;
  assert.ok(total <= POSTGRES_USABLE_CONNECTIONS, `${pooled} through PgBouncer + ${direct} direct + ${ONE_OFF_CONNECTIONS} one-off = ${total} > ${POSTGRES_USABLE_CONNECTIONS}`);
}

for (const [name, dir] of Object.entries(KUSTOMIZATIONS)) {
  describe(`infra/k8s ${name}`, () => {
    const rendered = {};
    beforeAll(() => {
      rendered.docs = render(KUBECTL, dir);
      // The settings the apps read as variables (envFrom), not PgBouncer's file.
      const asVariables = new Set(rendered.docs.filter((doc) => doc.spec?.template?.spec?.containers).flatMap(containersOf).flatMap((container) => container.envFrom ?? []).map((source) => source.configMapRef?.name).filter(Boolean));
      rendered.configKeys = new Set(rendered.docs.filter((doc) => doc.kind === 'ConfigMap' && asVariables.has(doc.metadata.name)).flatMap((doc) => Object.keys(doc.data ?? {})));
    });

    it('renders documents that each match the Kubernetes or KEDA schema of their kind', async () => checkSchemas(rendered));
    it('runs each app as one Deployment with both probes on a port it declares, resources and a hardened container', () => checkDeployments(rendered));
    it('gives each app a grace period covering its preStop pause and its own shutdown bound', () => checkGracePeriods(rendered));
    it('scales every worker with exactly one ScaledObject on its own queues\' backlog', () => checkScaledObjects(rendered));
    it('autoscales the gateway with an HPA and guards every app with a PodDisruptionBudget matching it', () => checkHpaAndBudgets(rendered));
    it('runs the migration as a Job of the same image with APP=migrate', () => checkMigrationJob(rendered));
    it('refers to the operator\'s Secret and never carries one', () => checkSecretRefs(rendered));
    it('gives each app every variable it needs from the ConfigMap or the documented Secret keys', () => checkEnvironment(rendered));
    it('runs PgBouncer as replicas of its own image, probed, hardened, its settings mounted and its Service in front', () => checkPgbouncer(rendered));
    it('migrates on PostgreSQL itself, whatever DATABASE_URL the apps get', () => checkMigrationDirect(rendered));
    it('sizes PgBouncer for every app\'s pool at the autoscalers\' maximums, within PostgreSQL\'s max_connections', () => checkConnectionBudget(rendered));
  });
}

describe('docs/OPERATIONS.md, Kubernetes', () => {
  it('shows the commands that install the production overlay, in an order that works', () => {
    const section = operationsKubernetes();
    const docs = render(KUBECTL, KUSTOMIZATIONS.production);
    const namespace = only(docs, 'Deployment', 'gateway').metadata.namespace;
    assert.ok(namespace, 'the production overlay sets a namespace');
    const steps = [
      `kubectl create namespace ${namespace}`,
      `kubectl create secret generic ${SECRET_NAME} -n ${namespace}`,
      "kubectl apply -k infra/k8s/overlays/production -l 'app.kubernetes.io/component in (config,migration)'",
      `kubectl wait -n ${namespace} --for=condition=complete job/migrate`,
      'kubectl apply -k infra/k8s/overlays/production',
    ];
    let at = 0;
    for (const step of steps) {
      const found = section.indexOf(step, at);
      assert.ok(found >= 0, `docs/OPERATIONS.md shows \`${step}\` after the previous step`);
      at = found + step.length;
    }
    // What that selector picks: the Job, the settings it reads, nothing that runs the apps.
    const selected = docs.filter((doc) => ['config', 'migration'].includes(doc.metadata.labels?.['app.kubernetes.io/component']));
    const job = only(selected, 'Job', 'migrate');
    for (const source of containersOf(job)[0].envFrom.filter((entry) => entry.configMapRef)) only(selected, 'ConfigMap', source.configMapRef.name);
    assert.deepEqual(selected.filter((doc) => doc.kind !== 'ConfigMap').map((doc) => `${doc.kind}/${doc.metadata.name}`), ['Job/migrate']);
  });

  it('lists every secret a process needs in the create-secret command', () => {
    const keys = documentedSecretKeys(operationsKubernetes());
    for (const key of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'REDIS_URL', 'SECRETS_KEY', 'X_BEARER_TOKEN']) assert.ok(keys.includes(key), `${key} is in the command`);
    assert.equal(new Set(keys).size, keys.length, 'no key twice');
  });

  it('points DATABASE_URL at the PgBouncer Service and DATABASE_DIRECT_URL at PostgreSQL, as the same user', () => {
    const section = operationsKubernetes();
    const pooled = new URL(documentedSecretValue(section, 'DATABASE_URL'));
    const direct = new URL(documentedSecretValue(section, 'DATABASE_DIRECT_URL'));
    const service = only(render(KUBECTL, KUSTOMIZATIONS.production), 'Service', 'pgbouncer');
    assert.equal(`${pooled.hostname}:${pooled.port}`, `${service.metadata.name}:${service.spec.ports[0].port}`);
    assert.notEqual(direct.hostname, pooled.hostname);
    assert.deepEqual([pooled.username, pooled.pathname], [direct.username, direct.pathname]);
  });
});
