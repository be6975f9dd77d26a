/**
 * Which destinations rxagent's proxy connects to, by address: a name is resolved on the host once,
 * checked, and the connection goes to the checked address (so a second, different DNS answer
 * cannot slip in between check and connect).
 *
 * The rule, written for a user who lists `*` and expects "the internet, not my machine": an
 * address that is not public (loopback, the private ranges, link-local, carrier-grade NAT,
 * unspecified, multicast, reserved, documentation ranges, and IPv6 forms that can carry any IPv4
 * address: mapped, NAT64, 6to4) is reached only when the name or address asked for is itself an
 * exact entry of `allowedDomains` (`localhost`, `127.0.0.1`, `db.internal`). No wildcard reaches
 * one: `*` and `*.example.com` get public addresses only, so a name whose DNS the command's author
 * controls cannot be pointed at `rxagent serve`, a database or a cloud metadata service on the host.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Two lists: a BlockList checks IPv4 addresses against its IPv6 rules too (as mapped addresses).
// Built at the first check, not at load: every command start loads this module (issue 20 §3).
let notPublic: { readonly v4: BlockList; readonly v6: BlockList } | undefined;
function notPublicLists(): { readonly v4: BlockList; readonly v6: BlockList } {
  if (notPublic) return notPublic;
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
    ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) v4.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [
    ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001:db8::', 32],
    ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
  ] as const) v6.addSubnet(net, bits, 'ipv6');
  return (notPublic = { v4, v6 });
}

/** Whether `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const lists = notPublicLists();
  return family === 4 ? !lists.v4.check(address, 'ipv4') : !lists.v6.check(address, 'ipv6');
}

export function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** Whether `host` is allowed by the rules: `example.com` that host, `*.example.com` its subdomains, `*` any. */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  if (name === '') return false;
  return allowed.some((rule) => {
    const r = normalizeHost(rule);
    if (r === '*') return true;
    if (r.startsWith('*.')) return name.endsWith(r.slice(1)) && name.length > r.length - 1;
    return name === r;
  });
}

/** Whether `host` is an exact (wildcard-free) entry of the rules. */
export function exactlyListed(host: string, allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  return name !== '' && allowed.some((rule) => !rule.includes('*') && normalizeHost(rule) === name);
}

export type Destination = { readonly ok: true; readonly address: string } | { readonly ok: false; readonly reason: string };

/** The address to connect to for `host`, or why the proxy refuses it. */
export async function resolveDestination(host: string, allowed: readonly string[], resolve = lookupAll): Promise<Destination> {
  const name = normalizeHost(host);
  if (!domainAllowed(name, allowed)) return { ok: false, reason: 'this host is not in sandbox.network.allowedDomains' };
  let addresses: readonly string[];
  try {
    addresses = isIP(name) !== 0 ? [name] : await resolve(name);
  } catch {
    return { ok: false, reason: `${name} could not be resolved` };
  }
  if (addresses.length === 0) return { ok: false, reason: `${name} could not be resolved` };
  const hidden = addresses.find((address) => !isPublicAddress(address));
  // Every answer must pass, not just the first: the client side cannot tell which one we used.
  if (hidden !== undefined && !exactlyListed(name, allowed)) {
    return { ok: false, reason: `${name} is a loopback, private or link-local address (${hidden}); only an exact entry in sandbox.network.allowedDomains reaches one` };
  }
  return { ok: true, address: addresses[0]! };
}

async function lookupAll(name: string): Promise<readonly string[]> {
  return (await lookup(name, { all: true })).map((entry) => entry.address);
}
