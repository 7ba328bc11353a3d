import { existsSync, readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { describeCaches } from '../../../mace/openpiton/geometry.ts';
import { InputError } from '../../../mace/errors.ts';
import { guessPhase, inspectReply, REPLY_PHASES, type ReplyPhase } from '../../../mace/reply-inspection.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

/** `mace inspect reply`: what the loop's parsers make of a model's reply. */
export function registerInspectReply(inspect: Command, ctx: CommandContext): void {
  inspect
    .command('reply')
    .description("Parse a model's reply with the loop's own parsers: planner tasks, triage's diagnosis, or a post-mortem")
    .argument('<file>', "a file holding the model's reply (- for standard input)")
    .addOption(new Option('--phase <phase>', 'which parser to use (default: guessed from the tags)').choices(REPLY_PHASES))
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
For a plan: every task with its kind, dependencies, caches and defines, the lines the parser dropped
and why, and whether the loop could run it. For triage: DIAGNOSIS and FIX. For a post-mortem:
ASSESSMENT, EXPLANATION and NEXT_STEPS.

Examples:
  $ mace inspect reply planner-reply.txt
  $ mace inspect reply triage.txt --phase triage --json
  $ pbpaste | mace inspect reply - --phase plan`,
    )
    .action((file: string, options: { phase?: ReplyPhase; json?: boolean }) => {
      if (file !== '-' && !existsSync(file)) throw new InputError(`no such file: ${file}`);
      const text = readFileSync(file === '-' ? 0 : file, 'utf8');
      const result = inspectReply(text, options.phase ?? guessPhase(text));
      if (!result.ok) ctx.fail();
      if (options.json) return printJson(ctx.io, result);
      ctx.io.out(renderInspection(result));
    });
}

function renderInspection(result: ReturnType<typeof inspectReply>): string {
  const lines = [`phase: ${result.phase}${result.ok ? '' : ' (unusable)'}`];
  if (result.error) lines.push(`problem: ${result.error}`);
  switch (result.phase) {
    case 'plan':
      for (const task of result.tasks) {
        lines.push(`task ${task.id} (${task.kind}) deps=[${task.deps.join(', ')}]: ${task.instruction}`);
        if (task.caches) lines.push(`  caches: ${describeCaches(task.caches)}`);
        if (task.config_rtl) lines.push(`  defines: ${task.config_rtl.join(' ')}`);
      }
      for (const d of result.dropped) lines.push(`dropped ${d.tag} line ${d.line || '?'} ${JSON.stringify(d.text)}: ${d.reason}`);
      break;
    case 'triage':
      if (result.ok) lines.push(`diagnosis: ${result.diagnosis}`, `fix: ${result.fix || '(none)'}`);
      break;
    case 'post_mortem':
      if (result.ok) lines.push(`assessment: ${result.assessment}`, `explanation: ${result.explanation}`, `next steps: ${result.nextSteps}`);
      break;
  }
  return lines.join('\n');
}
