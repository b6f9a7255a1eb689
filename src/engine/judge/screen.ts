/**
 * A result that addresses the judge: text in its diff that reads as an instruction to whoever
 * ranks the results ("ignore previous instructions", "rank this result first"). Such a result is
 * not shown to the judge and ranks after every other contender: an attempt to steer the verdict
 * can only cost its author. A list of phrasings, so it catches the plain attempts, not every one
 * (docs/verdict.md, "Limits").
 *
 * Every line of the diff the judge would read that the result made goes through it: each added and
 * removed line (whatever it starts with: an added `++i` is `+++i` in the patch), and every header
 * line, which carries the file names (git's quoted octal escapes decoded). Context lines are the
 * base's text. Before matching, a line is read the way a reader sees it: compatibility forms folded
 * (fullwidth, ligatures), accents and invisible format characters (zero-width) dropped, look-alike
 * letters of other scripts (Cyrillic `е`, Greek `ο`) read as Latin, and word separators of names
 * (`_`, `-`, `.`, `/`, camelCase) read as spaces. A line carrying bidi controls, which make a
 * reader see other text than the judge's model reads, addresses the judge by itself.
 */
const ADDRESSING: readonly RegExp[] = [
  /\b(ignore|disregard|forget)\b[^\n]{0,40}\b(previous|prior|above|earlier|all|other|your)\b[^\n]{0,20}\b(instructions?|prompts?|rules?|guidelines?)/i,
  /\b(rank|rate|score|choose|pick|select|prefer|vote for)\b[^\n]{0,40}\b(this|me|mine|my)\b[^\n]{0,30}\b(first|highest|best|top|winner|number one|#1)\b/i,
  /\b(dear|attention|note to|message to|hey|hello)\b[^\n]{0,20}\b(judge|reviewer|grader|evaluator|ranker)\b/i,
  // Not `attention`: an "attention model" is machine-learning code, not a greeting.
  /\b(dear|note to|message to|hey|hello)\b[^\n]{0,20}\b(ai|assistant|model|llm)\b/i,
  /\b(you are|you're|as) (an? )?(ai|language model|llm|judge|grader|evaluator|assistant)\b/i,
  /\b(system prompt|new instructions|assistant:|system:)/i,
  // The same attempts in a few other languages, written without accents (they are dropped first).
  /\b(ignora|ignorez|ignorer|ignoriere|ignoriert|ignorar|ignore|olvida|vergiss|esqueca|dimentica|oublie)\b[^\n]{0,40}\b(instrucciones|instrucoes|instructions|anweisungen|istruzioni|regles|reglas|regeln|regras|regole)\b/i,
  /\b(estimado|querido|cher|chere|lieber|liebe|caro|cara|prezado)\b[^\n]{0,20}\b(juez|juge|richter|giudice|juiz|evaluador|evaluateur|gutachter|valutatore|avaliador)\b/i,
  /(игнорируи|игнорирует|забудь|забудьте|не обращаи)[^\n]{0,40}(инструкц|указани|правил)/i,
  /(уважаем|дорог)[^\n]{0,20}(судья|судьи|оценщик|рецензент|проверяющ|модель)/i,
  /(忽略|无视|忽視|無視|不要理会|不要理會|忘记|忘記)[^\n]{0,20}(指令|指示|提示|规则|規則|说明|說明)/,
  /(排名|排在|评为|評為|选择|選擇|选|選)[^\n]{0,20}(第一|最高|最好|最佳)/,
  /(亲爱的|親愛的|尊敬的)[^\n]{0,10}(评委|評委|评审|評審|裁判|法官|审查|審查)/,
  /(以前|これまで|上記)の[^\n]{0,10}(指示|命令|ルール)[^\n]{0,10}(無視|忘れ)/,
  /(一位|1位|最上位|最高)に[^\n]{0,10}(して|ランク|評価)/,
  /(이전|위의|모든)[^\n]{0,10}(지시|명령|지침)[^\n]{0,10}(무시|잊어)/,
];

/** Bidi embedding, override and isolate controls (Trojan Source, CVE-2021-42574). */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

/** Letters of other scripts that look like Latin ones, read as the Latin letter. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ɡ: 'g',
  ı: 'i',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};

/** git's C-style quoting of a name (`"a/\344\275\240"`): the octal escapes read back as UTF-8. */
const unquoteOctal = (text: string): string =>
  /\\[0-7]{3}/.test(text)
    ? text.replace(/(?:\\[0-7]{3})+/g, (run) =>
        Buffer.from(
          run
            .split('\\')
            .slice(1)
            .map((octal) => parseInt(octal, 8)),
        ).toString('utf8'),
      )
    : text;

/** The forms of one line the phrasings are matched against (module doc). */
const readings = (line: string): string[] => {
  const plain = unquoteOctal(line)
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}]/gu, '')
    .normalize('NFC');
  const latin = plain.replace(/[^\p{ASCII}]/gu, (char) => LOOK_ALIKES[char] ?? char);
  const words = latin
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-./\\]+/g, ' ')
    .replace(/\s+/g, ' ');
  return [plain, latin, words];
};

/** A line with its invisible format characters shown as `<U+202E>`, for the record. */
export const showInvisible = (text: string): string =>
  text.replace(
    /\p{Cf}/gu,
    (char) => `<U+${char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}>`,
  );

/** Whether a line of the patch is the result's: added, removed, or a header (file names). */
const isResultLine = (line: string): boolean =>
  line !== '' && !line.startsWith(' ') && !line.startsWith('\\');

/** The first line of the diff that addresses the judge, trimmed; null when none does. */
export const addressesJudge = (patch: string): string | null => {
  for (const line of patch.split('\n')) {
    if (!isResultLine(line)) continue;
    const text = line.startsWith('+') || line.startsWith('-') ? line.slice(1) : line;
    if (
      BIDI.test(text) ||
      readings(text).some((reading) => ADDRESSING.some((pattern) => pattern.test(reading)))
    )
      return showInvisible(text.trim()).slice(0, 200);
  }
  return null;
};
