/**
 * A minimal executable ELF for a model diag: a .text of NOPs at the diag's load address with the
 * `pass` and `fail` labels sims reads its good and bad traps from, so `objdump -f`/`-t` read the
 * run's diag.exe as they read a real one.
 */

export interface ElfSpec {
  readonly bits: 32 | 64;
  /** ELF e_machine: 243 RISC-V, 43 SPARC V9. */
  readonly machine: number;
  readonly base: number;
  readonly symbols: ReadonlyArray<{ readonly name: string; readonly address: number }>;
}

const RISCV_NOP = 0x0000_0013;
const RISCV_JUMP_SELF = 0x0000_006f;

export function buildElf(spec: ElfSpec): { elf: Buffer; text: Buffer } {
  const is64 = spec.bits === 64;
  const end = Math.max(...spec.symbols.map((s) => s.address)) + 8;
  const text = Buffer.alloc(Math.ceil((end - spec.base) / 16) * 16);
  if (spec.machine === 243) {
    for (let off = 0; off < text.length; off += 4) text.writeUInt32LE(RISCV_NOP, off);
    for (const s of spec.symbols) text.writeUInt32LE(RISCV_JUMP_SELF, s.address - spec.base);
  }

  const shstr = strtab(['.text', '.symtab', '.strtab', '.shstrtab']);
  const str = strtab(spec.symbols.map((s) => s.name));
  const symSize = is64 ? 24 : 16;
  const symtab = Buffer.alloc(symSize * (2 + spec.symbols.length));
  // Entry 1: the .text section symbol (local); then the labels (global functions).
  writeSymbol(symtab, symSize, 1, { name: 0, value: spec.base, info: 0x03, shndx: 1 }, is64);
  spec.symbols.forEach((s, i) =>
    writeSymbol(symtab, symSize, 2 + i, { name: str.offsets[i]!, value: s.address, info: 0x12, shndx: 1 }, is64),
  );

  const ehSize = is64 ? 64 : 52;
  const phSize = is64 ? 56 : 32;
  const shSize = is64 ? 64 : 40;
  const textOff = ehSize + phSize;
  const symOff = align(textOff + text.length, 8);
  const strOff = symOff + symtab.length;
  const shstrOff = strOff + str.data.length;
  const shOff = align(shstrOff + shstr.data.length, 8);
  const out = Buffer.alloc(shOff + 5 * shSize);

  out.set([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, 1, 1, 0], 0);
  const w = fieldWriter(out, is64);
  let p = 16;
  p = w.u16(p, 2); // ET_EXEC
  p = w.u16(p, spec.machine);
  p = w.u32(p, 1);
  p = w.addr(p, spec.base); // entry
  p = w.addr(p, ehSize); // phoff
  p = w.addr(p, shOff);
  p = w.u32(p, 0); // flags
  p = w.u16(p, ehSize);
  p = w.u16(p, phSize);
  p = w.u16(p, 1);
  p = w.u16(p, shSize);
  p = w.u16(p, 5);
  w.u16(p, 4); // shstrndx

  // One PT_LOAD of the text, read and execute.
  p = ehSize;
  if (is64) {
    p = w.u32(p, 1);
    p = w.u32(p, 5);
    p = w.addr(p, textOff);
    p = w.addr(p, spec.base);
    p = w.addr(p, spec.base);
    p = w.addr(p, text.length);
    p = w.addr(p, text.length);
    w.addr(p, 0x1000);
  } else {
    p = w.u32(p, 1);
    p = w.u32(p, textOff);
    p = w.u32(p, spec.base);
    p = w.u32(p, spec.base);
    p = w.u32(p, text.length);
    p = w.u32(p, text.length);
    p = w.u32(p, 5);
    w.u32(p, 0x1000);
  }

  text.copy(out, textOff);
  symtab.copy(out, symOff);
  str.data.copy(out, strOff);
  shstr.data.copy(out, shstrOff);

  const sections = [
    {
      name: shstr.offsets[0]!,
      type: 1,
      flags: 6,
      addr: spec.base,
      off: textOff,
      size: text.length,
      link: 0,
      info: 0,
      align: 4,
      entsize: 0,
    },
    {
      name: shstr.offsets[1]!,
      type: 2,
      flags: 0,
      addr: 0,
      off: symOff,
      size: symtab.length,
      link: 3,
      info: 2,
      align: 8,
      entsize: symSize,
    },
    {
      name: shstr.offsets[2]!,
      type: 3,
      flags: 0,
      addr: 0,
      off: strOff,
      size: str.data.length,
      link: 0,
      info: 0,
      align: 1,
      entsize: 0,
    },
    {
      name: shstr.offsets[3]!,
      type: 3,
      flags: 0,
      addr: 0,
      off: shstrOff,
      size: shstr.data.length,
      link: 0,
      info: 0,
      align: 1,
      entsize: 0,
    },
  ];
  sections.forEach((s, i) => {
    let q = shOff + (i + 1) * shSize;
    q = w.u32(q, s.name);
    q = w.u32(q, s.type);
    q = w.addr(q, s.flags);
    q = w.addr(q, s.addr);
    q = w.addr(q, s.off);
    q = w.addr(q, s.size);
    q = w.u32(q, s.link);
    q = w.u32(q, s.info);
    q = w.addr(q, s.align);
    w.addr(q, s.entsize);
  });
  return { elf: out, text };
}

const align = (n: number, to: number): number => Math.ceil(n / to) * to;

function strtab(names: readonly string[]): { data: Buffer; offsets: number[] } {
  const offsets: number[] = [];
  let text = '\0';
  for (const name of names) {
    offsets.push(text.length);
    text += `${name}\0`;
  }
  return { data: Buffer.from(text, 'latin1'), offsets };
}

function writeSymbol(
  buf: Buffer,
  size: number,
  index: number,
  s: { name: number; value: number; info: number; shndx: number },
  is64: boolean,
): void {
  const at = index * size;
  buf.writeUInt32LE(s.name, at);
  if (is64) {
    buf.writeUInt8(s.info, at + 4);
    buf.writeUInt16LE(s.shndx, at + 6);
    buf.writeBigUInt64LE(BigInt(s.value), at + 8);
  } else {
    buf.writeUInt32LE(s.value, at + 4);
    buf.writeUInt8(s.info, at + 12);
    buf.writeUInt16LE(s.shndx, at + 14);
  }
}

/** Little-endian field writers that return the next offset; `addr` is the class's word size. */
function fieldWriter(buf: Buffer, is64: boolean) {
  return {
    u16: (at: number, v: number) => buf.writeUInt16LE(v, at),
    u32: (at: number, v: number) => buf.writeUInt32LE(v >>> 0, at),
    addr: (at: number, v: number) => (is64 ? buf.writeBigUInt64LE(BigInt(v), at) : buf.writeUInt32LE(v >>> 0, at)),
  };
}

/** mem.image as rv32_as/rv64_img write it: a section header line, then 32 bytes per line in two hex groups. */
export function memImage(base: number, text: Buffer): string {
  const rows = [`\n@${base.toString(16).padStart(16, '0')}\t// Section '.RED_SEC', segment 'text'`];
  for (let off = 0; off < text.length; off += 32) {
    const hex = text
      .subarray(off, off + 32)
      .toString('hex')
      .padEnd(64, '0');
    rows.push(`${hex.slice(0, 32)} ${hex.slice(32)}`);
  }
  return rows.join('\n') + '\n';
}
