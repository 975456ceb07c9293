// What a private PostgreSQL or Redis instance under .data/ is made of: `<name>/` holds its data,
// `<name>.log` its output and `<name>.instance.json` its record, { pid, port, users: [pids of dev.mjs
// runs using it] }. A run that finds a live instance joins it; the last user to leave stops it. An
// instance whose users all died (a killed run) is adopted by the next run.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { waitFor } from './service-probes.mjs';

/**
 * @typedef {object} Instance
 * @property {string} name        folder and file names under the data directory (`pg`, `redis`)
 * @property {string} label       what messages call it (`PostgreSQL`)
 * @property {NodeJS.Signals} stopSignal
 * @property {(port: number) => string} urlFor
 * @property {(url: string) => Promise<{ok: boolean, detail: string}>} probe
 */

/** The files of an instance in `dataDir`. */
export function instanceFiles(dataDir, name) {
  return {
    dir: path.join(dataDir, name),
    logFile: path.join(dataDir, `${name}.log`),
    recordFile: path.join(dataDir, `${name}.instance.json`),
  };
}

export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return !isAlive(pid);
}

/** The last lines of a log, to show why an instance did not start. */
export function logTail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function readRecord(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeRecord(file, record) {
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}

const otherLiveUsers = (record) => (record.users ?? []).filter((pid) => pid !== process.pid && isAlive(pid));

/** Removes this run from the record; true when nobody else uses the instance any more. */
function leaveRecord(file) {
  const record = readRecord(file);
  if (!record) return true;
  const users = otherLiveUsers(record);
  if (users.length > 0) {
    writeRecord(file, { ...record, users });
    return false;
  }
  return true;
}

/**
 * Stops the instance unless another live run still uses it. PostgreSQL takes SIGINT (fast shutdown: it
 * does not wait for clients), Redis SIGTERM (writes its append-only file, then exits).
 */
async function stopInstance(instance, dataDir, log = () => undefined) {
  const { recordFile } = instanceFiles(dataDir, instance.name);
  const record = readRecord(recordFile);
  if (!record) return;
  if (!leaveRecord(recordFile)) {
    log(`${instance.label}: left the private instance running, another run still uses it`);
    return;
  }
  if (isAlive(record.pid)) {
    try {
      process.kill(record.pid, instance.stopSignal);
    } catch {
      // already gone
    }
    if (!(await waitForExit(record.pid, 30_000))) {
      try {
        process.kill(record.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await waitForExit(record.pid, 5_000);
    }
  }
  rmSync(recordFile, { force: true });
  log(`${instance.label}: private instance stopped`);
}

/** Joins the instance a live record names when it answers; undefined when there is none to join. */
export async function joinInstance(instance, dataDir, log) {
  const { recordFile } = instanceFiles(dataDir, instance.name);
  const existing = readRecord(recordFile);
  if (!existing || !isAlive(existing.pid)) return undefined;
  const url = instance.urlFor(existing.port);
  if (!(await instance.probe(url)).ok) return undefined;
  writeRecord(recordFile, { ...existing, users: [...otherLiveUsers(existing), process.pid] });
  log(`${instance.label}: reusing the private instance in .data/${instance.name} (port ${existing.port})`);
  return { url, stop: () => stopInstance(instance, dataDir, log) };
}

/**
 * Starts the server detached (it outlives a killed run, and the next run adopts it), records it and waits
 * until it answers. `spawnOptions` may name the OS user to run it as.
 */
export async function startInstance(instance, dataDir, { command, args, port, spawnOptions = {}, timeoutMs }, log) {
  const { logFile, recordFile } = instanceFiles(dataDir, instance.name);
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], ...spawnOptions });
  closeSync(out);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', () => (exited = true));
  writeRecord(recordFile, { pid: child.pid, port, users: [process.pid] });
  const url = instance.urlFor(port);
  const ready = await waitFor(() => instance.probe(url), { timeoutMs, isDead: () => exited });
  if (!ready.ok) {
    await stopInstance(instance, dataDir);
    throw new DevError(`the private ${instance.label} did not start (${ready.detail}); see .data/${instance.name}.log:\n${logTail(logFile)}`);
  }
  const where = `data in .data/${instance.name}, log in .data/${instance.name}.log`;
  log(`${instance.label}: started a private instance on 127.0.0.1:${port} (${where})`);
  return { url, stop: () => stopInstance(instance, dataDir, log) };
}
