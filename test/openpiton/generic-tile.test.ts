/**
 * Generic Tile cores: the descriptor's validation and loading, what the tile can host, the descriptor
 * against its RTL, the wrapper skeleton and when a wrapper still counts as it, the scaffold in a
 * checkout, and which checkouts have a Generic Tile at all.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CoreDescriptorSchema, loadCoreDescriptor, type CoreDescriptor } from '../../mace/core-descriptor.ts';
import { skeletonWrapper } from '../../mace/generic-core.ts';
import { InputError } from '../../mace/errors.ts';
import {
  genericTileProblem,
  hostingProblems,
  rtlProblems,
  scaffoldGenericCore,
  unwrittenWrapper,
  wrapperSkeleton,
} from '../../mace/openpiton/generic-tile.ts';
import { genericCorePaths } from '../../mace/openpiton/geometry.ts';
import { readModule } from '../../mace/openpiton/verilog.ts';
import { makeSpec } from '../../mace/spec.ts';
import { FEMTO, FEMTO_CORE, writeCoreFolder } from '../fixtures/generic-core.ts';
import { tempDir } from '../helpers.ts';
import { fakeCheckout } from './fake-checkout.ts';
import { offlineCheckout } from './offline/helpers.ts';

const femto = (): CoreDescriptor => loadCoreDescriptor(writeCoreFolder());
const spec = (generic_core: unknown) =>
  makeSpec({
    workloads: ['addi.S'],
    objective: 'Bring up femto.',
    core: 'generic',
    generic_core: generic_core as never,
  });

describe('core descriptors', () => {
  it('loads a YAML file, resolving its sources against its folder', () => {
    const path = writeCoreFolder();
    const core = loadCoreDescriptor(path);
    assert.equal(core.name, 'femto');
    assert.equal(core.sources[0], join(path, '..', 'rtl', 'femto_core.v'));
    assert.equal(core.ports.find((p) => p.name === 'clk')!.width, 1);
    assert.deepEqual(spec(path).generic_core, core, 'a spec takes the path and holds the descriptor');
  });

  it('names every field at fault', () => {
    const bad = CoreDescriptorSchema.safeParse({
      ...FEMTO,
      name: 'Femto-1',
      ports: [...FEMTO.ports!, { name: 'clk', direction: 'in', role: 'clock' }],
    });
    assert.equal(bad.success, false);
    const messages = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    assert.ok(messages.some((m) => m.startsWith('name: name must be a lower-case identifier')));
    assert.ok(messages.includes('ports.9.direction: direction must be one of input, output, inout; got "in"'));
  });

  it('ties core generic and generic_core together in a spec, with messages that say how', () => {
    assert.throws(
      () => makeSpec({ workloads: ['addi.S'], objective: 'x', core: 'generic' }),
      (e: Error) => e instanceof InputError && /generic_core: core generic needs generic_core/.test(e.message),
    );
    assert.throws(
      () => makeSpec({ workloads: ['addi.S'], objective: 'x', core: 'pico', generic_core: FEMTO }),
      /core: generic_core names a Generic Tile core, so core must be generic; got pico/,
    );
    assert.throws(
      () => spec('/no/such/femto.yaml'),
      /generic_core: cannot read core descriptor \/no\/such\/femto\.yaml/,
    );
  });
});

describe('what the Generic Tile can host', () => {
  it('hosts an RV32 core with a clock, one reset and the transducer’s memory interface', () => {
    assert.deepEqual(hostingProblems(femto()), []);
  });

  it('says why it cannot host a 64-bit core, another ISA, an inout or another bus', () => {
    const core = femto();
    assert.match(hostingProblems({ ...core, isa: 'rv64gc' })[0]!, /^ISA rv64gc: .*64-bit core needs a tile of its own/);
    assert.match(
      hostingProblems({ ...core, isa: 'armv7' })[0]!,
      /^ISA armv7: the Generic Tile runs RISC-V RV32 programs only/,
    );
    const axi = { ...core, ports: core.ports.filter((p) => p.role !== 'mem_wstrb') };
    assert.deepEqual(hostingProblems(axi), [
      "no port has the role mem_wstrb: the Generic Tile reaches the L1.5 through PicoRV32's memory transducer (mem_valid, mem_ready, 32-bit mem_addr, mem_wdata and mem_rdata, 4-bit mem_wstrb); a core with another bus (AXI, TileLink, separate instruction and data ports) needs a transducer of its own first",
    ]);
    const narrow = { ...core, ports: core.ports.map((p) => (p.role === 'mem_addr' ? { ...p, width: 24 } : p)) };
    assert.deepEqual(hostingProblems(narrow), [
      'port mem_addr (role mem_addr) is an output of 24 bit(s); the transducer needs an output of 32',
    ]);
    const inout = {
      ...core,
      ports: [...core.ports, { name: 'gpio', direction: 'inout' as const, width: 8, role: null }],
    };
    assert.deepEqual(hostingProblems(inout), ['port gpio is inout: the tile has no pads to give a core']);
  });

  it('compares the descriptor with the top module’s ports', () => {
    const core = femto();
    assert.deepEqual(rtlProblems(core, readModule(FEMTO_CORE, 'femto_core')), []);
    const drifted = FEMTO_CORE.replace('input      [31:0] mem_rdata', 'input      [15:0] mem_rdata').replace(
      '    output            trap\n',
      '    output            trap,\n    input             irq\n',
    );
    assert.deepEqual(rtlProblems(core, readModule(drifted, 'femto_core')), [
      'port mem_rdata is 32 bit(s) in the descriptor but 16 in femto_core',
      "femto_core's port irq is not in the descriptor",
    ]);
  });
});

describe('the wrapper skeleton', () => {
  it('counts as unwritten until its code changes, whatever its comments say', () => {
    const core = femto();
    const skeleton = wrapperSkeleton(core);
    assert.equal(unwrittenWrapper(core, skeleton), true);
    assert.equal(unwrittenWrapper(core, undefined), true);
    const recommented =
      skeleton.replace('// TODO: instantiate', '// DONE (not really): instantiate') + '// more notes\n';
    assert.equal(unwrittenWrapper(core, recommented), true);
    const written = skeleton.replace('endmodule', '    femto_core core (.*);\nendmodule');
    assert.equal(unwrittenWrapper(core, written), false);
    assert.deepEqual(
      readModule(skeleton, 'femto_wrapper').ports.map((p) => `${p.direction} ${p.name}:${p.width}`),
      core.ports.map((p) => `${p.direction} ${p.name}:${p.width}`),
    );
  });

  it('is scaffolded into a checkout once, and read from the iteration’s edits before the checkout', () => {
    const root = tempDir();
    mkdirSync(join(root, 'piton/design/chip/tile/generic'), { recursive: true });
    const core = femto();
    const paths = genericCorePaths('femto');
    assert.deepEqual(scaffoldGenericCore(root, core), [`${paths.rtl}/femto_core.v`, paths.wrapper, paths.flist]);
    assert.deepEqual(scaffoldGenericCore(root, core), [], 'nothing to write a second time');
    const older = { ...core, ports: core.ports.filter((p) => p.name !== 'trap') };
    writeFileSync(join(root, paths.wrapper), wrapperSkeleton(older));
    assert.deepEqual(scaffoldGenericCore(root, core), [paths.wrapper], 'an older descriptor’s skeleton is replaced');
    const s = spec(core);
    assert.equal(skeletonWrapper(s, root, new Map()), true);
    const written = wrapperSkeleton(core).replace('endmodule', '    femto_core core (.*);\nendmodule');
    assert.equal(skeletonWrapper(s, root, new Map([[paths.wrapper, written]])), false);
    writeFileSync(join(root, paths.wrapper), written);
    assert.equal(skeletonWrapper(s, root, new Map()), false);
    scaffoldGenericCore(root, core);
    assert.equal(readFileSync(join(root, paths.wrapper), 'utf8'), written, 'a written wrapper is kept');
  });
});

describe('which checkouts have a Generic Tile', () => {
  it('the offline model has one', async () => {
    assert.equal(genericTileProblem(await offlineCheckout()), undefined);
  });

  it('OpenPiton has none, and its sims does not know -generic_core', () => {
    const real = fakeCheckout();
    assert.match(
      genericTileProblem(real)!,
      /^this checkout has no Generic Tile .* dies with 'Unprocessed argument: -generic_core=<name>'/,
    );
    mkdirSync(join(real, 'piton/design/chip/tile/generic'), { recursive: true });
    mkdirSync(join(real, 'piton/tools/src/sims'), { recursive: true });
    writeFileSync(join(real, 'piton/tools/src/sims/sims,2.0'), "GetOptions(\\%opt, 'sys=s', 'ariane', 'pico');\n");
    assert.match(genericTileProblem(real)!, /sims,2\.0 does not know -generic_core/);
  });
});
