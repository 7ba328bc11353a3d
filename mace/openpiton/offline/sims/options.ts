/**
 * sims' command line, parsed the way sims,2.0 parses it with Getopt::Long (prefix `-`, no
 * abbreviations, pass_through): every option it declares is accepted in `-name=value`, `-name value`
 * and, for switches, `-name` / `-noname` form; anything left over must name a diag by its extension,
 * or sims dies with "Unprocessed argument".
 */

type Kind = 'flag' | 'string' | 'list' | 'int';

/** The options sims,2.0 declares (its GetOptions calls and the cache configurables), by kind. */
const DECLARED: Record<Kind, readonly string[]> = {
  flag: (
    'h help version overwrite rerun dryrun injobq interactive parallel ost1 ariane pico pico_het sparcv9 rv32 rv64 ' +
    'rv64_platform regress report simslog build precompiled uart_dmw copyall debug fast_boot gzip icv_build icv_run ' +
    'midas_only midas_use_tgseed msm_build msm_run ncv_build ncv_run pal_use_tgseed riv_build riv_run run_diag_pl ' +
    'other_sim_build other_sim_run tarcopy use_config vcs_build clean vcs_cm_merge vcs_prof vcs_run vcs_use_cli ' +
    'vcs_use_cm vcs_use_initreg verbose vlt_build vlt_run gui log_all debug_all ibm ed_enable slurm dmbr ' +
    'dmbr_checker oram'
  ).split(' '),
  string: (
    'dv_root alias diaglist model_dir regress_id result_dir sim_type sim_q_command sims_config simslog_name ' +
    'build_id sys asm_diag_name asm_diag_path trap_offset jobcommand_name finish_mask group_name image_diag_name ' +
    'image_diag_path model network_config regress_date regress_time rv32_mabi rv32_march rv32_target_triple ' +
    'rv64_mabi rv64_march rv64_target_triple other_sim_build_cmd other_sim_run_cmd tmp_dir vcs_cm_args vcs_cm_cond ' +
    'vcs_cm_config vcs_cm_fsmcfg vcs_cm_name num_tile x_tiles y_tiles dynamic_csm ed_sync_method ' +
    'config_l1i_size config_l1i_associativity config_l1d_size config_l1d_associativity config_l15_size ' +
    'config_l15_associativity config_l2_size config_l2_associativity ' +
    // The offline model's own: selects a Generic Tile core (real sims does not know it).
    'generic_core'
  ).split(' '),
  list: (
    'config_cpp_args diaglist_cpp_args group asm_diag_root gcc_args config_rtl flist image_diag_root midas_args ' +
    'post_process_cmd pre_process_cmd icv_build_args msm_build_args ncv_build_args riv_build_args sim_build_args ' +
    'sim_run_args toplevel vcs_build_args vfile vlt_build_args'
  ).split(' '),
  int: ['max_cycle', 'reg_count', 'rtl_timeout', 'tg_seed'],
};

const KIND = new Map<string, Kind>(
  (Object.entries(DECLARED) as [Kind, readonly string[]][]).flatMap(([kind, names]) =>
    names.map((n) => [n, kind] as const),
  ),
);

export interface SimsOptions {
  readonly flags: ReadonlySet<string>;
  /** Switches given in their negated form (`-nobuild`). */
  readonly negated: ReadonlySet<string>;
  readonly strings: ReadonlyMap<string, string>;
  readonly lists: ReadonlyMap<string, readonly string[]>;
  readonly ints: ReadonlyMap<string, number>;
  /** Arguments no option took: diag names, or what sims dies on. */
  readonly rest: readonly string[];
}

/** Parse sims' arguments. Values are taken verbatim, as Perl sees them after the shell. */
export function parseSimsArgs(argv: readonly string[]): SimsOptions {
  const flags = new Set<string>();
  const negated = new Set<string>();
  const strings = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const ints = new Map<string, number>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^-([A-Za-z0-9_-]+)(?:=([\s\S]*))?$/.exec(arg);
    if (!m) {
      rest.push(arg);
      continue;
    }
    const [, name, inline] = m as unknown as [string, string, string | undefined];
    const kind = KIND.get(name);
    if (kind === 'flag' && inline === undefined) {
      flags.add(name);
      continue;
    }
    const negatedName = /^no-?(.+)$/.exec(name)?.[1];
    if (!kind && negatedName && KIND.get(negatedName) === 'flag' && inline === undefined) {
      negated.add(negatedName);
      continue;
    }
    if (!kind || kind === 'flag') {
      rest.push(arg);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) {
        rest.push(arg);
        continue;
      }
      value = argv[++i]!;
    }
    if (kind === 'int') {
      if (!/^[-+]?\d+$/.test(value)) {
        rest.push(arg);
        continue;
      }
      ints.set(name, Number(value));
    } else if (kind === 'list') lists.set(name, [...(lists.get(name) ?? []), value]);
    else strings.set(name, value);
  }
  return { flags, negated, strings, lists, ints, rest };
}

/** Diag names sims takes from leftover arguments, by the same loose patterns it matches. */
export function isDiagName(arg: string): boolean {
  return /\.s|\.S|\.riscv|\.pal|\.image|\.c/.test(arg);
}
