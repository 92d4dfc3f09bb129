/** The command line of `npm run soak`. */
import { fileURLToPath } from 'node:url';

/** `reports/soak` of the repository, wherever the soak is started from. */
const defaultOut = fileURLToPath(new URL('../../../../reports/soak', import.meta.url));

/** What one soak run does. */
export interface SoakOptions {
  /** Length of the phases, calibration and final drain excluded. */
  readonly minutes: number;
  /** Steps a second held during the steady phases; undefined: half the calibrated maximum. */
  readonly rate: number | undefined;
  /**
   * The server (or, with `inPlace`, the database) the soak runs on; undefined: a cluster of the
   * soak's own, started for the run with PostgreSQL's default vacuum settings.
   */
  readonly databaseUrl: string | undefined;
  /** Use `databaseUrl` as it is (migrated if needed) instead of a database of the soak's own. */
  readonly inPlace: boolean;
  /** Keep the soak's own database afterwards. */
  readonly keep: boolean;
  readonly workers: number;
  readonly concurrency: number;
  /** Seconds a run is kept after it ends; undefined: a tenth of the run's length. */
  readonly retentionSeconds: number | undefined;
  /** Where the report's JSON goes. */
  readonly out: string;
  /** Judge the figures of this earlier run's JSON instead of running. */
  readonly judge: string | undefined;
}

export const SoakUsage = `usage: npm run soak -- [options]
  --minutes N          length of the phases (default 30)
  --rate N             steps/s held in the steady phases (default: half the calibrated maximum)
  --database-url URL   a server to run on; the soak creates and drops a database of its own on it
                       (default: a PostgreSQL cluster of the soak's own, autovacuum at its defaults)
  --in-place           run in the database of --database-url itself (migrated if needed)
  --keep               keep the soak's database afterwards
  --workers N          worker processes (default 2)
  --concurrency N      concurrency of each worker (default 25)
  --retention S        seconds a finished run is kept (default: a tenth of the run, 180 s for 30 minutes)
  --out DIR            where the JSON report goes (default reports/soak of the repository)
  --judge FILE         judge the figures of an earlier run (its JSON) by the criteria as they are now`;

/** Thrown for a command line the soak cannot run. */
export class SoakUsageError extends Error {
  override readonly name = 'SoakUsageError';
}

function positive(flag: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0) {
    throw new SoakUsageError(`${flag}: expected a positive number, got ${String(text)}`);
  }
  return value;
}

/** Parses the soak's arguments (after `--`). */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  let minutes = 30;
  let rate: number | undefined;
  let databaseUrl: string | undefined;
  let inPlace = false;
  let keep = false;
  let workers = 2;
  let concurrency = 25;
  let retentionSeconds: number | undefined;
  let out = defaultOut;
  let judge: string | undefined;
  for (let k = 0; k < argv.length; k++) {
    const flag = argv[k]!;
    const next = () => argv[++k];
    switch (flag) {
      case '--minutes':
        minutes = positive(flag, next());
        break;
      case '--rate':
        rate = positive(flag, next());
        break;
      case '--database-url':
        databaseUrl = next();
        if (databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
          throw new SoakUsageError('--database-url: expected a postgres:// URL');
        }
        break;
      case '--in-place':
        inPlace = true;
        break;
      case '--keep':
        keep = true;
        break;
      case '--workers':
        workers = Math.round(positive(flag, next()));
        break;
      case '--concurrency':
        concurrency = Math.round(positive(flag, next()));
        break;
      case '--retention':
        retentionSeconds = positive(flag, next());
        break;
      case '--judge':
        judge = next();
        break;
      case '--out':
        out = next() ?? out;
        break;
      default:
        throw new SoakUsageError(`unknown option ${flag}`);
    }
  }
  if (inPlace && databaseUrl === undefined) {
    throw new SoakUsageError('--in-place: needs --database-url');
  }
  return {
    minutes,
    rate,
    databaseUrl,
    inPlace,
    keep,
    workers,
    concurrency,
    retentionSeconds,
    out,
    judge,
  };
}
