import type { Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import { makeBackend } from '../../../mace/llm/factory.ts';
import { RunLlm } from '../../../mace/llm/recorder.ts';
import { LLMCallFailed, parseReplayTag, type ParsedReplayTag } from '../../../mace/llm/types.ts';
import { addLlmOptions, llmSpecFromFlags, type LlmFlags } from '../llm-flags.ts';
import { CommandFailed, printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface PingOptions extends LlmFlags {
  readonly tag?: string;
  readonly json?: boolean;
}

const PING_PROMPT = 'This is a connectivity check. Reply with the single word: pong';

export function registerLlm(program: Command, ctx: CommandContext): void {
  const llm = program.command('llm').description('Check the LLM backends');
  addLlmOptions(
    llm
      .command('ping')
      .description(
        'Make one small call through a backend and print the model, tokens (input/output/thinking), cost and latency',
      ),
  )
    .option('--tag <tag>', 'replay: answer the recorded call with this replay tag, e.g. 3f9c2a1b7d04/iter0/-/plan')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Exits 1 when the call fails (no reply, bad credentials, rate limits that outlast the retries).

Examples:
  $ mace llm ping --llm vertex
  $ OPENAI_BASE_URL=http://127.0.0.1:8080/v1 mace llm ping --llm openai --model qwen3:8b --json
  $ mace llm ping --llm replay --replay-db runs/a.duckdb --replay-run 3f9c2a1b7d04 --tag 3f9c2a1b7d04/iter0/-/plan`,
    )
    .action((options: PingOptions) => ping(options, ctx));
}

async function ping(options: PingOptions, ctx: CommandContext): Promise<void> {
  const where = options.tag === undefined ? undefined : tagOrThrow(options.tag);
  const backend = await makeBackend(llmSpecFromFlags(options));
  const llm = new RunLlm(backend, { runId: 'ping' });
  let reply;
  try {
    reply = await llm.call({
      phase: where?.phase ?? 'ping',
      prompt: PING_PROMPT,
      iteration: where?.iteration,
      taskId: where?.taskId,
      attempt: where?.attempt,
    });
  } catch (error) {
    if (error instanceof LLMCallFailed) throw new CommandFailed(`llm ping failed: ${error.message}`);
    throw error;
  }
  const result = {
    backend: backend.name,
    model: reply.model,
    tokens: {
      input: reply.usage.inputTokens,
      output: reply.usage.outputTokens,
      thinking: reply.usage.thinkingTokens,
    },
    usd: reply.usd,
    latency_s: reply.latencyS,
    reply: reply.text,
  };
  if (options.json) {
    printJson(ctx.io, result);
    return;
  }
  ctx.io.out(
    [
      `backend  ${result.backend}`,
      `model    ${result.model}`,
      `tokens   input ${result.tokens.input}, output ${result.tokens.output}, thinking ${result.tokens.thinking}`,
      `cost     $${result.usd.toFixed(6)}`,
      `latency  ${result.latency_s.toFixed(2)} s`,
      `reply    ${oneLine(result.reply)}`,
    ].join('\n'),
  );
}

function tagOrThrow(tag: string): ParsedReplayTag {
  const parsed = parseReplayTag(tag);
  if (!parsed)
    throw new InputError(
      `--tag ${JSON.stringify(tag)} is not a replay tag; expected <run_id>/iter<N>|run/<task_id>|-/<phase>[:<attempt>], ` +
        'as in the replay_tag column of llm_calls',
    );
  return parsed;
}

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}
