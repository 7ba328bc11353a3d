/**
 * What the loop's parsers make of a model's reply, for users debugging a model's output: the
 * planner's tasks (with caches, defines and the lines dropped), triage's DIAGNOSIS and FIX, or the
 * post-mortem's ASSESSMENT, EXPLANATION and NEXT_STEPS.
 */
import { parseDiagnosis, parsePostMortem, parseTasks, type DroppedLine } from './directives.ts';
import { planFromReply, PlanningError } from './planner.ts';
import type { Task } from './spec.ts';

export const REPLY_PHASES = ['plan', 'triage', 'post_mortem'] as const;
export type ReplyPhase = (typeof REPLY_PHASES)[number];

export type ReplyInspection =
  | {
      readonly phase: 'plan';
      readonly ok: boolean;
      readonly tasks: readonly Task[];
      readonly dropped: readonly DroppedLine[];
      readonly error?: string;
    }
  | {
      readonly phase: 'triage';
      readonly ok: boolean;
      readonly diagnosis?: string;
      readonly fix?: string;
      readonly error?: string;
    }
  | {
      readonly phase: 'post_mortem';
      readonly ok: boolean;
      readonly assessment?: string;
      readonly explanation?: string;
      readonly nextSteps?: string;
      readonly error?: string;
    };

export function inspectReply(text: string, phase: ReplyPhase): ReplyInspection {
  switch (phase) {
    case 'plan': {
      const { dropped } = parseTasks(text);
      try {
        const { tasks } = planFromReply(text);
        return { phase, ok: true, tasks, dropped };
      } catch (error) {
        if (!(error instanceof PlanningError)) throw error;
        return { phase, ok: false, tasks: parseTasks(text).tasks, dropped, error: error.message };
      }
    }
    case 'triage': {
      const d = parseDiagnosis(text);
      return d
        ? { phase, ok: true, ...d }
        : {
            phase,
            ok: false,
            error: 'no DIAGNOSIS: line; the loop would record diagnosis unknown with the fix "retry with more context"',
          };
    }
    case 'post_mortem': {
      const pm = parsePostMortem(text);
      return pm
        ? { phase, ok: true, ...pm }
        : { phase, ok: false, error: 'no ASSESSMENT: line; the loop would drop this post-mortem' };
    }
  }
}

/** Guess the phase from the tags a reply uses, when the user does not say. */
export function guessPhase(text: string): ReplyPhase {
  if (/^\s*(?:[-*•]|\d+[.)])?[ \t]*(ASSESSMENT|EXPLANATION|NEXT_STEPS):/im.test(text)) return 'post_mortem';
  if (/^\s*(?:[-*•]|\d+[.)])?[ \t]*(DIAGNOSIS|FIX):/im.test(text)) return 'triage';
  return 'plan';
}
