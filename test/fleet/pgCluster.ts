/**
 * A throw-away PostgreSQL cluster for the fleet tests: `initdb` in a temp dir, `postgres` on a free
 * 127.0.0.1 port with trust auth (loopback only), torn down with `pg_ctl stop -m immediate`.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: there the cluster belongs to the
 * `postgres` system user the Debian package creates, and the binaries run through `runuser`.
 *
 * Where the binaries are missing the tests cannot run. Under CI (`CI=true`, where `.ci/run`
 * installs the `postgresql` package) that is a failure; elsewhere the suite is skipped with a
 * message saying what to install (`pgUnavailableReason`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or undefined. */
function findBinDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(PG_ROOT, versions[0], 'bin');
}

const binDir = findBinDir();
const onCi = process.env['CI'] === 'true' || process.env['CI'] === '1';

/** Why the cluster cannot be had here (undefined: it can). Under CI the tests fail instead of skipping. */
export const pgUnavailableReason: string | undefined =
  binDir === undefined && !onCi
    ? `PostgreSQL server binaries not found under ${PG_ROOT}: install the Debian package 'postgresql' to run the fleet tests`
    : undefined;

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<db>`. */
  readonly url: string;
  readonly port: number;
  /** A fresh database of this cluster (for tests that must not see each other's tables). */
  createDatabase(name: string): Promise<string>;
  /** Kills the server at once (as a crash or a lost machine would), keeping its data for `restart()`. */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function pgExec(bin: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  if (binDir === undefined) {
    throw new Error(`PostgreSQL server binaries not found under ${PG_ROOT} (CI must install the Debian package 'postgresql')`);
  }
  const path = join(binDir, bin);
  return asRoot ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, [...args]);
}

/** Starts a new cluster and waits until it accepts connections. */
export async function startPgCluster(): Promise<PgCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'rxagent-pg-'));
  if (asRoot) await chownToPostgres(dir);
  const data = join(dir, 'data');
  await pgExec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // fsync stays on: the store's durability claim is about committed transactions.
  const start = () =>
    pgExec('pg_ctl', [
      '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'),
      '-o', `-p ${port} -h 127.0.0.1 -k ${dir} -c max_connections=200`,
      'start',
    ]);
  await start();
  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    url: `${base}/postgres`,
    port,
    async createDatabase(name: string) {
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    async halt() {
      await pgExec('pg_ctl', ['-D', data, '-w', '-t', '60', '-m', 'immediate', 'stop']);
    },
    async restart() {
      await start();
    },
    async stop() {
      await pgExec('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The data directory must belong to the user the server runs as. */
async function chownToPostgres(dir: string): Promise<void> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(dir, Number(uid.trim()), Number(gid.trim()));
}
