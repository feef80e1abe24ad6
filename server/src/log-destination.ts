/**
 * Standard output, buffered: lines are written 4 kB at a time (about twenty
 * access log lines), and at least once a second, so a quiet server still
 * shows its lines promptly. A write per line (a system call and a thread-pool
 * round trip each) was the largest single cost of the access log. pino
 * flushes the buffer when the process exits (signal, fatal start, `exit`); a
 * crash that kills the process outright (SIGKILL, OOM) loses at most the
 * last second of lines.
 */
export const logDestination = { dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 } as const;
