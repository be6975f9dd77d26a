/**
 * A seccomp filter that keeps sandboxed commands away from Unix sockets on the host.
 *
 * bubblewrap's mounts cannot stop `connect()` to a socket file on the read-only host file
 * system: `/run/user/<uid>/bus` (then `systemd-run --user` runs anything outside the sandbox),
 * `/var/run/docker.sock` (root on the host), a database's socket, or one in the workspace. The
 * filter makes `socket(AF_UNIX, …)` fail with EPERM, so no new Unix socket can be made to connect
 * with. `socketpair()` stays allowed: it connects only two ends the caller creates (Node's child
 * processes use it for their pipes). `io_uring_setup` fails too, since io_uring can open sockets
 * without the `socket` system call the filter sees. On x86-64 the 32-bit (int 0x80) entry is
 * covered (`socketcall(SYS_SOCKET)` refused whatever the family, since its arguments are in
 * memory a filter cannot read) and x32 system calls are refused; on arm64 the 32-bit entry too.
 *
 * This is Claude Code's sandbox runtime's rule on Linux, written here as classic BPF for
 * bwrap's `--seccomp FD` (no compiler or libseccomp needed: about 20 instructions).
 */

/* Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h). */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
/* Offsets in struct seccomp_data: nr, arch, then args[0] (low half on little-endian machines). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const AF_UNIX = 1;
const SYS_SOCKET = 1; // socketcall's call number for socket()

interface ArchRules {
  readonly arch: number;
  readonly socket: number;
  /** The multiplexed `socketcall` (i386 only). */
  readonly socketcall?: number;
  readonly ioUringSetup: number;
  /** System call numbers from here up are refused (x32's numbering on x86-64). */
  readonly refuseFrom?: number;
}

const RULES: Readonly<Record<string, readonly ArchRules[]>> = {
  x64: [
    { arch: 0xc000003e, socket: 41, ioUringSetup: 425, refuseFrom: 0x40000000 }, // x86-64 (and x32)
    { arch: 0x40000003, socket: 359, socketcall: 102, ioUringSetup: 425 }, // i386
  ],
  arm64: [
    { arch: 0xc00000b7, socket: 198, ioUringSetup: 425 }, // aarch64
    { arch: 0x40000028, socket: 281, ioUringSetup: 425 }, // arm (EABI)
  ],
};

/** Where a jump goes: the next instruction, one of the two exits, or a label further on. */
type Target = 'fall' | 'allow' | 'deny' | { readonly label: string };
type Instruction =
  | { readonly kind: 'load'; readonly offset: number }
  | { readonly kind: 'jeq' | 'jge'; readonly value: number; readonly then: Target; readonly otherwise: Target }
  | { readonly kind: 'label'; readonly name: string };

/** The filter for `arch` as bwrap reads it (an array of `struct sock_filter`), or undefined where none is written. */
export function unixSocketFilter(arch: string = process.arch): Uint8Array | undefined {
  const rules = RULES[arch];
  if (rules === undefined) return undefined;
  const program: Instruction[] = [];
  rules.forEach((rule, i) => {
    // A system call from an architecture not listed gets nothing (there is none on these kernels).
    const nextArch: Target = i + 1 < rules.length ? { label: `arch${i + 1}` } : 'deny';
    program.push({ kind: 'label', name: `arch${i}` }, { kind: 'load', offset: ARCH });
    program.push({ kind: 'jeq', value: rule.arch, then: 'fall', otherwise: nextArch }, { kind: 'load', offset: NR });
    if (rule.refuseFrom !== undefined) program.push({ kind: 'jge', value: rule.refuseFrom, then: 'deny', otherwise: 'fall' });
    program.push({ kind: 'jeq', value: rule.ioUringSetup, then: 'deny', otherwise: 'fall' });
    if (rule.socketcall !== undefined) program.push({ kind: 'jeq', value: rule.socketcall, then: { label: `socketcall${i}` }, otherwise: 'fall' });
    program.push({ kind: 'jeq', value: rule.socket, then: { label: `family${i}` }, otherwise: 'allow' });
    // socket(): args[0] is the address family.
    program.push({ kind: 'label', name: `family${i}` }, { kind: 'load', offset: ARG0 });
    program.push({ kind: 'jeq', value: AF_UNIX, then: 'deny', otherwise: 'allow' });
    if (rule.socketcall !== undefined) {
      // socketcall(): args[0] is which call; the family is in memory, so every socket() is refused.
      program.push({ kind: 'label', name: `socketcall${i}` }, { kind: 'load', offset: ARG0 });
      program.push({ kind: 'jeq', value: SYS_SOCKET, then: 'deny', otherwise: 'allow' });
    }
  });
  return assemble(program);
}

/** Lays out the program with the two exits at its end and resolves jumps (relative and forward). */
function assemble(program: readonly Instruction[]): Uint8Array {
  const code: Array<{ readonly op: number; readonly jt: Target; readonly jf: Target; readonly k: number }> = [];
  const labels = new Map<string, number>();
  for (const ins of program) {
    if (ins.kind === 'label') labels.set(ins.name, code.length);
    else if (ins.kind === 'load') code.push({ op: LD_W_ABS, jt: 'fall', jf: 'fall', k: ins.offset });
    else code.push({ op: ins.kind === 'jeq' ? JEQ_K : JGE_K, jt: ins.then, jf: ins.otherwise, k: ins.value });
  }
  const allowAt = code.length;
  const denyAt = code.length + 1;
  const offset = (target: Target, from: number): number => {
    const to = target === 'fall' ? from + 1 : target === 'allow' ? allowAt : target === 'deny' ? denyAt : labels.get(target.label);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp filter: bad jump to ${JSON.stringify(target)} from ${from}`);
    return to - from - 1;
  };
  const bytes = new Uint8Array((code.length + 2) * 8);
  const view = new DataView(bytes.buffer);
  const write = (index: number, op: number, jt: number, jf: number, k: number) => {
    view.setUint16(index * 8, op, true);
    view.setUint8(index * 8 + 2, jt);
    view.setUint8(index * 8 + 3, jf);
    view.setUint32(index * 8 + 4, k >>> 0, true);
  };
  code.forEach((ins, at) => write(at, ins.op, offset(ins.jt, at), offset(ins.jf, at), ins.k));
  write(allowAt, RET_K, 0, 0, SECCOMP_RET_ALLOW);
  write(denyAt, RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM);
  return bytes;
}
