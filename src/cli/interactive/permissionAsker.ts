/**
 * The interactive answer to a permission 'ask': the question (whole command, working directory,
 * diff) is printed, the person picks yes / yes and don't ask again / no (with an optional reason
 * for the model). "Don't ask again" saves the rule in `.claude/settings.local.json` and applies it
 * at once to the rest of this run. Questions come one at a time, in order; how long each call
 * waited for its answer is kept, since that time is the person's, not the tool's.
 */
import type { PermissionAnswer, PermissionRequest } from '../../permissions/createPermissionPolicy.js';
import { ruleMatches, type MatchContext } from '../../permissions/matchRule.js';
import { parseRule, type PermissionRule } from '../../permissions/rules.js';
import { sharedBashCheck } from '../../permissions/bashCheckThread.js';
import { MAX_PARSED_COMMAND_CHARS } from '../../tools/builtin/shellParse.js';
import type { FrontEnd } from './frontEnd.js';
import { addLocalRule, localSettingsFile } from './localSettings.js';
import { proposedRule, questionLines, questionOptions, type Paint, type QuestionAnswer } from './permissionQuestion.js';

export interface PermissionAsker {
  ask(request: PermissionRequest): Promise<PermissionAnswer>;
  /** Milliseconds the call waited for its answer (0 when it was not asked). */
  waitedMs(toolUseId: string): number;
}

export interface AskerOptions {
  readonly frontEnd: FrontEnd;
  readonly match: MatchContext;
  readonly paint: Paint;
  /** The call may start now: its clock starts at the answer. */
  readonly answered: (toolUseId: string, at: number) => void;
  readonly now?: () => number;
}

const CANCELLED = 'The call was cancelled before the user answered.';
const DECLINED = 'The user declined this call. Ask them how to proceed.';

export function createPermissionAsker(options: AskerOptions): PermissionAsker {
  const { frontEnd, paint } = options;
  const now = options.now ?? Date.now;
  const waited = new Map<string, number>();
  const sessionRules: PermissionRule[] = [];
  let queue: Promise<unknown> = Promise.resolve();

  // A Bash command is matched in the permission check's worker (the parser would hold the event
  // loop); without an answer the person is asked, as without a rule.
  const sessionRuleAllows = async (request: PermissionRequest): Promise<boolean> => {
    if (sessionRules.length === 0) return false;
    const command = request.toolName === 'Bash' ? (request.input as { command?: unknown } | null)?.command : undefined;
    if (typeof command !== 'string' || command.length > MAX_PARSED_COMMAND_CHARS) {
      return sessionRules.some((rule) => ruleMatches(rule, 'allow', request.toolName, request.input, options.match));
    }
    const rules = [...sessionRules];
    return sharedBashCheck()
      .check({ kind: 'allows', rules, command, ctx: options.match }, request.signal)
      .then((answer) => answer.allowed, () => false);
  };

  const decide = async (request: PermissionRequest): Promise<PermissionAnswer> => {
    if (await sessionRuleAllows(request)) return { behavior: 'allow' };
    if (request.signal.aborted) return { behavior: 'deny', message: CANCELLED };
    frontEnd.print(`${questionLines(request, options.match.cwd, frontEnd.columns(), paint).join('\n')}\n`);
    const choice: QuestionAnswer | undefined = await frontEnd.choose('Allow this call?', questionOptions(request), request.signal);
    if (request.signal.aborted) {
      frontEnd.print(`  ${paint('dim', '(question withdrawn: the call was cancelled)')}\n`);
      return { behavior: 'deny', message: CANCELLED };
    }
    switch (choice) {
      case 'yes':
        frontEnd.print(`  ${paint('green', 'allowed')}\n`);
        return { behavior: 'allow' };
      case 'always': {
        const rule = proposedRule(request.toolName, request.input);
        try {
          sessionRules.push(parseRule(rule));
          addLocalRule(options.match.cwd, 'allow', rule);
          frontEnd.print(`  ${paint('green', `allowed; ${rule} saved to ${localSettingsFile(options.match.cwd)}`)}\n`);
        } catch (error) {
          frontEnd.print(`  ${paint('yellow', `allowed for this run; the rule could not be saved: ${(error as Error).message}`)}\n`);
        }
        return { behavior: 'allow' };
      }
      case 'no':
      case undefined: {
        const reason = choice === 'no' ? await frontEnd.readLine('Tell the model what to do instead (Enter to skip): ', request.signal) : undefined;
        const said = reason?.trim() ?? '';
        frontEnd.print(`  ${paint('red', 'declined')}${said ? ` ${paint('dim', `(${said})`)}` : ''}\n`);
        return { behavior: 'deny', message: said ? `The user declined this call and said: ${said}` : DECLINED };
      }
    }
  };

  return {
    ask(request) {
      const asked = now();
      const answer = queue.then(() => decide(request));
      queue = answer.catch(() => undefined);
      return answer.then((result) => {
        const at = now();
        waited.set(request.toolUseId, at - asked);
        options.answered(request.toolUseId, at);
        return result;
      });
    },
    waitedMs: (id) => waited.get(id) ?? 0,
  };
}
