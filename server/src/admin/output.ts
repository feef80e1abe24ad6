/**
 * What a command prints: one JSON object on stdout with `--json` (for
 * scripts: nothing else goes to stdout then), or lines for people.
 * Progress and warnings go to stderr, progress only on a terminal.
 */
export interface Output {
  /** The command's result: `json` as one object, or `lines` for people. */
  result(json: object, lines: string[]): void;
  /** How far a long step has come (stderr, on a terminal only). */
  progress(step: string, done: number, total: number): void;
  /** A finished progress line (stderr, on a terminal only). */
  progressDone(): void;
}

export interface Streams {
  stdout: Pick<NodeJS.WriteStream, 'write'>;
  stderr: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>;
}

/** Dates as ISO-8601 strings, everything else as it is. */
function toJson(value: object): string {
  return JSON.stringify(value, (_key, item: unknown) => (item instanceof Date ? item.toISOString() : item));
}

/** At most this often a progress line is redrawn. */
const progressEveryMs = 200;

export function createOutput(json: boolean, streams: Streams = process): Output {
  let lastDrawn = 0;
  let drawing = false;
  return {
    result(value, lines) {
      if (json) streams.stdout.write(`${toJson(value)}\n`);
      else for (const line of lines) streams.stdout.write(`${line}\n`);
    },
    progress(step, done, total) {
      if (!streams.stderr.isTTY) return;
      const now = Date.now();
      if (done < total && now - lastDrawn < progressEveryMs) return;
      lastDrawn = now;
      drawing = true;
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      streams.stderr.write(`\r${step}: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} (${percent} %)`);
    },
    progressDone() {
      if (drawing) streams.stderr.write('\n');
      drawing = false;
    },
  };
}

/** A date for people: ISO-8601, or a dash. */
export function when(date: Date | null | undefined): string {
  return date ? date.toISOString() : '-';
}
