import { getCompileCacheDir } from 'node:module';

/**
 * A database command on the embedded database runs PGlite, 9 MB of WebAssembly, for about a
 * second. V8 compiles it first with its baseline compiler (Liftoff), then compiles the hot
 * functions again with its optimising one (TurboFan): for a process that exits a moment later
 * that cost 2 s of CPU and 500 MB of memory for nothing, two thirds of a command's time.
 * `--liftoff-only` keeps the baseline code, but V8 reads it only from the command line, so the
 * CLI executes itself again with it, in place: same process id, stdio, signals and exit code.
 * Where Node cannot (Windows has no execve) the command runs as it is, only slower. The new
 * process reads the compile cache the CLI enabled from its first module on, so it strips no
 * TypeScript the first one already did.
 */

const LIFTOFF_ONLY = '--liftoff-only';

/** Returns only when the process already runs with the flag, or cannot be replaced. */
export function reexecWithLiftoffOnly(): void {
  if (process.execArgv.includes(LIFTOFF_ONLY) || process.execve === undefined) return;
  const cacheDir = getCompileCacheDir();
  process.execve(
    process.execPath,
    [process.execPath, LIFTOFF_ONLY, ...process.execArgv, ...process.argv.slice(1)],
    { ...process.env, ...(cacheDir !== undefined && { NODE_COMPILE_CACHE: cacheDir }) },
  );
}
