/**
 * The core descriptor: a Generic Tile core as a user states it, in a YAML or JSON file a run points
 * at (`generic_core: cores/femto.yaml` beside `core: generic` in a spec), or written inline. It names
 * the core, its top module, its ports (with the role each plays for the tile) and its ISA, and lists
 * its source files. Validated with zod; every message names the field at fault.
 *
 * @example
 *   name: femto
 *   top: femto_core
 *   isa: rv32i
 *   sources: [rtl/femto_core.v]        # relative to this file
 *   ports:
 *     - { name: clk, direction: input, role: clock }
 *     - { name: resetn, direction: input, role: reset_n }
 *     - { name: mem_valid, direction: output, role: mem_valid }
 *     - { name: mem_addr, direction: output, width: 32, role: mem_addr }
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PORT_ROLES } from './openpiton/generic-tile.ts';
import { GENERIC_CORE_NAME_RE } from './openpiton/geometry.ts';
import { formatIssues, shown } from './openpiton/issues.ts';
import { oneOf, positiveInt, strictObject } from './schema.ts';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

const identifier = (what: string) =>
  z
    .string({ error: `${what} must be a Verilog identifier` })
    .regex(IDENTIFIER, { error: (iss) => `${what} must be a Verilog identifier, got ${shown(iss.input)}` });

export const CorePortSchema = strictObject({
  name: identifier('a port name'),
  direction: oneOf(['input', 'output', 'inout'] as const, 'direction'),
  width: positiveInt('width').default(1).describe('Bits; 1 when left out'),
  role: oneOf(PORT_ROLES, 'role').nullable().default(null).describe('What the port is to the tile; null for others'),
});

export const CoreDescriptorSchema = strictObject({
  name: z.string({ error: 'name must be a string' }).regex(GENERIC_CORE_NAME_RE, {
    error: (iss) =>
      `name must be a lower-case identifier such as femto (it names the core's folder and wrapper), got ${shown(iss.input)}`,
  }),
  top: identifier('top (the core’s top module)'),
  isa: z
    .string({ error: 'isa must be a string such as rv32imc' })
    .trim()
    .toLowerCase()
    .min(1, { error: 'isa must not be empty; give the ISA the core runs, such as rv32imc' }),
  ports: z
    .array(CorePortSchema, { error: (iss) => `ports must be a list of ports, got ${shown(iss.input)}` })
    .min(1, { error: 'ports must list the core’s top-module ports' }),
  sources: z
    .array(z.string().min(1, { error: 'a source path must not be empty' }))
    .default([])
    .describe("The core's source files, copied into its rtl/ folder; relative to the descriptor file"),
  description: z.string().optional(),
}).superRefine((core, ctx) => {
  const seen = new Map<string, number>();
  core.ports.forEach((port, i) => {
    if (seen.has(port.name))
      ctx.addIssue({ code: 'custom', path: ['ports', i, 'name'], message: `port ${port.name} is listed twice` });
    seen.set(port.name, i);
  });
  const roles = new Map<string, string>();
  core.ports.forEach((port, i) => {
    if (!port.role || port.role === 'irq') return;
    if (roles.has(port.role))
      ctx.addIssue({
        code: 'custom',
        path: ['ports', i, 'role'],
        message: `role ${port.role} is given to both ${roles.get(port.role)} and ${port.name}`,
      });
    roles.set(port.role, port.name);
  });
  if (core.top === `${core.name}_wrapper`)
    ctx.addIssue({ code: 'custom', path: ['top'], message: `top must be the core's own module, not ${core.top}` });
});
export type CoreDescriptor = z.output<typeof CoreDescriptorSchema>;
export type CoreDescriptorInput = z.input<typeof CoreDescriptorSchema>;

/** Sources given relative to a folder, made absolute. */
const anchored = (core: CoreDescriptor, dir: string): CoreDescriptor => ({
  ...core,
  sources: core.sources.map((s) => (isAbsolute(s) ? s : resolve(dir, s))),
});

/**
 * Read and validate a descriptor file (YAML or JSON; JSON is YAML). Its sources are resolved against
 * its folder. Throws an Error whose message names the file and each field at fault.
 */
export function loadCoreDescriptor(file: string): CoreDescriptor {
  const path = resolve(file);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read core descriptor ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = CoreDescriptorSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`core descriptor ${path} is invalid:\n${formatIssues(parsed.error).replace(/^/gm, '  ')}`);
  return anchored(parsed.data, dirname(path));
}

/**
 * A spec's generic_core: a descriptor file's path (read here, relative to the working folder), or the
 * descriptor itself (its relative sources taken from the working folder).
 */
export const CoreDescriptorRefSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())], {
    error: (iss) =>
      `generic_core must be a core descriptor, or the path of its YAML or JSON file, got ${shown(iss.input)}`,
  })
  .transform((value, ctx) => {
    if (typeof value !== 'string') {
      const parsed = CoreDescriptorSchema.safeParse(value);
      if (parsed.success) return anchored(parsed.data, process.cwd());
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message });
      return z.NEVER;
    }
    try {
      return loadCoreDescriptor(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });
