/**
 * A deliberately small shell tokenizer: it understands words, quotes and the list/pipe operators,
 * and reports anything richer (redirections, substitutions, expansions, subshells, background
 * jobs, comments) as a feature it does not vouch for. Callers treat such commands as unsafe.
 */

export type ShellOperator = '|' | '&&' | '||' | ';';

/** A command line split into simple commands and the operators between them. */
export interface ParsedCommandLine {
  readonly commands: ReadonlyArray<readonly string[]>;
  readonly operators: readonly ShellOperator[];
}

export type ParseResult =
  | { readonly ok: true; readonly value: ParsedCommandLine }
  | { readonly ok: false; readonly reason: string };

const fail = (reason: string): ParseResult => ({ ok: false, reason });

export function parseCommandLine(command: string): ParseResult {
  const commands: string[][] = [];
  const operators: ShellOperator[] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (op: ShellOperator | undefined): string | undefined => {
    endWord();
    if (words.length === 0) return op === undefined && commands.length === 0 ? undefined : 'empty command';
    commands.push(words);
    words = [];
    if (op) operators.push(op);
    return undefined;
  };

  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    const next = command[i + 1];
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close === -1) return fail('unterminated single quote');
      word += command.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        const d = command[j]!;
        if (d === '$' || d === '`') return fail('expansion or substitution inside double quotes');
        if (d === '\\' && j + 1 < command.length) {
          const e = command[j + 1]!;
          // Inside double quotes a backslash only escapes these; otherwise it stays literal.
          if ('"\\$`\n'.includes(e)) {
            word += e;
            j++;
            continue;
          }
        }
        word += d;
      }
      if (j >= command.length) return fail('unterminated double quote');
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (next === undefined) return fail('trailing backslash');
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '\n' || c === ';') {
      const error = endCommand(';');
      if (error) return fail(error);
    } else if (c === '|') {
      if (next === '&') return fail('|& redirection');
      const error = endCommand(next === '|' ? '||' : '|');
      if (error) return fail(error);
      if (next === '|') i++;
    } else if (c === '&') {
      if (next !== '&') return fail('background job or & redirection');
      const error = endCommand('&&');
      if (error) return fail(error);
      i++;
    } else if (c === '>' || c === '<') {
      return fail('redirection');
    } else if (c === '$' || c === '`') {
      return fail('expansion or command substitution');
    } else if (c === '(' || c === ')' || c === '{' || c === '}') {
      return fail('subshell, group or brace expansion');
    } else if (c === '#' && !inWord) {
      return fail('comment');
    } else if (c === '!' && !inWord) {
      return fail('history expansion or negation');
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  if (words.length > 0) commands.push(words);
  else if (operators.length > 0 && operators[operators.length - 1] !== ';') return fail('command ends with an operator');
  else if (operators.length > 0) operators.pop(); // a trailing `;` or newline ends the list
  if (commands.length === 0) return fail('empty command');
  return { ok: true, value: { commands, operators } };
}
