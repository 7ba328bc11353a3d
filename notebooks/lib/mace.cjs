// The one bridge between a tslab cell and MACE-TS. tslab compiles cells to CommonJS with its own
// TypeScript 5.0, which can load neither the project's ESM TypeScript modules nor ESM-only packages
// such as vega (and `import()` typed in a cell fails: the kernel's vm has no dynamic-import hook).
// A .cjs file is plain Node, where import() works: this loads notebook.ts through tsx's loader,
// once per kernel, and hands the cell its exports. Usage in a cell:
//   const mace = await require('./lib/mace.cjs')();
const { pathToFileURL } = require('node:url');

let loaded;
module.exports = () =>
  (loaded ??= import('tsx/esm/api').then(({ tsImport }) => tsImport('./notebook.ts', pathToFileURL(__filename).href)));
