/**
 * `rxagent serve [--host 127.0.0.1] [--port <n>] <run options>`: the serve flags are taken out
 * here; everything else goes to the usual option parser, so serve accepts exactly the run
 * options the other modes do.
 */
import { UsageError } from '../cli/args.js';

export interface ServeFlags {
  readonly host: string;
  /** 0: any free port (the URL line says which). */
  readonly port: number;
  /** The arguments left for the run options. */
  readonly rest: readonly string[];
}

export const DEFAULT_HOST = '127.0.0.1';

function valueOf(argv: readonly string[], i: number, flag: string): string {
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('-')) throw new UsageError(`serve: ${flag} needs a value`);
  return value;
}

export function parseServeFlags(argv: readonly string[]): ServeFlags {
  let host = DEFAULT_HOST;
  let port = 0;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag === '--host' || flag === '--port') {
      const value = inline ?? valueOf(argv, i, flag);
      if (inline === undefined) i++;
      if (flag === '--host') {
        if (value.trim() === '') throw new UsageError('serve: --host needs a host name or address');
        host = value;
      } else {
        if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`serve: --port must be a port number 0-65535 (got '${value}')`);
        port = Number(value);
      }
      continue;
    }
    if (flag === '-p' || flag === '--print') throw new UsageError('serve: -p (print mode) does not apply; the page is the interface');
    rest.push(arg);
  }
  return { host, port, rest };
}

/**
 * The hosts that need no token: exactly this machine's usual loopback names. Any other address,
 * other 127.x addresses included, gets a token (asking for a token too often is the safe side).
 */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}
