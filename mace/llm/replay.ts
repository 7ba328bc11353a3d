/**
 * The replay backend answers each call from the replies a results database recorded under the same
 * replay tag, so a recorded run's decisions reproduce exactly, with no model and no network. The
 * replaying run has its own run id: a request's tag has its run-id prefix swapped for the recorded
 * run's before the lookup. A tag asked for more than once gets the recorded replies in turn.
 *
 * A reply reports the recorded model, tokens and cost, so budgets end a replayed run where they
 * ended the original; its latency is the replay's own. Recorded tool calls come back as records:
 * the tools are not run again, as replay reproduces decisions, not their side effects.
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { LlmCallRowSchema, type LlmCallRow } from '../store/readers.ts';
import type { Store } from '../store/store.ts';
import { LLMCallFailed, type LlmBackend, type LlmPhase, type LlmReply, type LlmRequest } from './types.ts';

/** A replayed call the recorded run never made: names the tag it looked for. */
export class ReplayMissing extends LLMCallFailed {
  override name = 'ReplayMissing';
  constructor(
    readonly tag: string,
    message: string,
    phase: LlmPhase,
  ) {
    super(message, phase);
  }
}

const ToolCallsSchema = z.array(
  z.object({ name: z.string(), args: z.record(z.string(), z.unknown()), result: z.string() }),
);

export interface ReplayOptions {
  /** The database holding the recorded run (it may be the one the replaying run writes to). */
  readonly store: Store;
  /** The run whose replies to give back. */
  readonly runId: string;
}

/** The tag a replaying run's request had in the recorded run. */
export function recordedTag(tag: string, recordedRunId: string): string {
  const slash = tag.indexOf('/');
  return slash < 0 ? tag : `${recordedRunId}${tag.slice(slash)}`;
}

/**
 * @example const llm = await replayBackend({ store: await Store.openForRead('runs/a.duckdb'), runId: '3f9c2a1b7d04' });
 */
export async function replayBackend(options: ReplayOptions): Promise<LlmBackend> {
  const { store, runId } = options;
  const rows = await store.read((q) =>
    q
      .all('SELECT * FROM llm_calls WHERE run_id = $1 ORDER BY seq', [runId])
      .then((all) => all.map((row) => LlmCallRowSchema.parse(row))),
  );
  if (!rows.length)
    throw new InputError(
      `run ${runId} has no recorded LLM calls in ${store.path} (run \`mace results --db ${store.path}\` to list the runs)`,
    );
  const queues = new Map<string, LlmCallRow[]>();
  for (const row of rows) {
    if (!row.replay_tag) continue;
    const queue = queues.get(row.replay_tag) ?? [];
    queue.push(row);
    queues.set(row.replay_tag, queue);
  }
  const model = rows.find((r) => r.ok && r.model)?.model ?? rows[0]!.model ?? 'unknown';

  async function call(request: LlmRequest): Promise<LlmReply> {
    const started = performance.now();
    if (!request.tag)
      throw new LLMCallFailed(`replay needs the call's replay tag; this ${request.phase} call has none`, request.phase);
    const tag = recordedTag(request.tag, runId);
    const row = queues.get(tag)?.shift();
    if (!row) {
      const examples = [...queues.keys()].slice(0, 3).join(', ');
      throw new ReplayMissing(
        tag,
        `replay: no recorded reply under ${tag} in ${store.path} (run ${runId} recorded ${rows.length} calls, such as ${examples})`,
        request.phase,
      );
    }
    if (!row.ok)
      throw new LLMCallFailed(
        `replay: the recorded call ${tag} failed: ${row.error ?? 'no reason recorded'}`,
        request.phase,
      );
    return {
      text: row.reply ?? '',
      model: row.model ?? model,
      usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens, thinkingTokens: row.thinking_tokens },
      usd: row.usd,
      latencyS: (performance.now() - started) / 1000,
      toolCalls: ToolCallsSchema.parse(row.tool_calls ?? []),
    };
  }

  return { name: 'replay', model, takesTools: false, call };
}
