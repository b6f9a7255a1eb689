/**
 * The judge's answer, validated: JSON of JUDGE_ANSWER's shape that ranks exactly the results it
 * was shown, each once. Anything else is not a ranking and is ignored with a warning.
 */
import { z } from 'zod';

/** `{"ranking":[{"result":"result-2","reason":"..."}]}`, best first. */
const JUDGE_ANSWER = z.object({
  ranking: z
    .array(z.object({ result: z.string(), reason: z.string().max(2000) }))
    .min(1)
    .max(64),
});

export type JudgeRanking = Array<{ label: string; reason: string }>;

/** The JSON of the answer: the whole text, or the one fenced ```json block in it. */
const jsonOf = (text: string): unknown => {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(trimmed);
  try {
    return JSON.parse(fenced?.[1] ?? trimmed) as unknown;
  } catch {
    return undefined;
  }
};

/** The ranking by label, or why the answer is not one. */
export const readRanking = (
  text: string | null,
  labels: readonly string[],
): { ranking: JudgeRanking } | { problem: string } => {
  if (text === null || text.trim() === '') return { problem: 'it gave no answer' };
  const parsed = JUDGE_ANSWER.safeParse(jsonOf(text));
  if (!parsed.success)
    return {
      problem: `its answer is not a ranking of the form {"ranking":[{"result":"...","reason":"..."}]}`,
    };
  const named = parsed.data.ranking.map((item) => item.result);
  const missing = labels.filter((label) => !named.includes(label));
  const unknown = named.filter((label) => !labels.includes(label));
  if (missing.length > 0 || unknown.length > 0 || new Set(named).size !== named.length)
    return {
      problem: `its ranking does not name each of ${labels.join(', ')} exactly once (it named ${named.join(', ')})`,
    };
  return { ranking: parsed.data.ranking.map((item) => ({ label: item.result, reason: item.reason })) };
};
