import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@hashwatch/logger';

type Transports = NonNullable<NonNullable<Parameters<typeof createLogger>[1]>['transports']>;

/** Collects log entries. winston takes any object-mode Writable with a two-argument `log` as a transport. */
class CaptureTransport extends Writable {
  constructor(private readonly lines: Record<string, unknown>[]) {
    super({ objectMode: true });
  }

  log(entry: Record<string, unknown>, callback: () => void): void {
    this.lines.push({ ...entry });
    callback();
  }

  override _write(entry: Record<string, unknown>, _encoding: BufferEncoding, callback: () => void): void {
    this.log(entry, callback);
  }
}

/** A logger whose entries land in `lines`, so tests can read what was logged. */
export function captureLogger(service = 'test'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const transports = [new CaptureTransport(lines)] as unknown as Transports;
  return { logger: createLogger(service, { level: 'debug', transports }), lines };
}
