/**
 * A result that addresses the judge: text in its diff that reads as an instruction to whoever
 * ranks the results ("ignore previous instructions", "rank this result first"). Such a result is
 * not shown to the judge and ranks after every other contender: an attempt to steer the verdict
 * can only cost its author. A list of phrasings, so it catches the plain attempts, not every one
 * (docs/verdict.md, "Limits").
 */
const ADDRESSING: readonly RegExp[] = [
  /\b(ignore|disregard|forget)\b[^\n]{0,40}\b(previous|prior|above|earlier|all|other|your)\b[^\n]{0,20}\b(instructions?|prompts?|rules?|guidelines?)/i,
  /\b(rank|rate|score|choose|pick|select|prefer|vote for)\b[^\n]{0,40}\b(this|me|mine|my)\b[^\n]{0,30}\b(first|highest|best|top|winner|number one|#1)\b/i,
  /\b(dear|attention|note to|message to|hey|hello)\b[^\n]{0,20}\b(judge|reviewer|grader|evaluator|ranker|ai|assistant|model|llm)\b/i,
  /\b(you are|you're|as) (an? )?(ai|language model|llm|judge|grader|evaluator|assistant)\b/i,
  /\b(system prompt|new instructions|assistant:|system:)/i,
];

/** The first line of the added text that addresses the judge, trimmed; null when none does. */
export const addressesJudge = (patch: string): string | null => {
  for (const line of patch.split('\n')) {
    // Only what the result adds: a removed line is the base's text.
    if (!line.startsWith('+') || line.startsWith('+++')) continue;
    const text = line.slice(1);
    if (ADDRESSING.some((pattern) => pattern.test(text))) return text.trim().slice(0, 200);
  }
  return null;
};
