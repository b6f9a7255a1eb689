/** Checks a configured model name before anything is launched. */
import { AdapterError } from './errors.js';

/** Names people leave in config files by mistake (compared case-insensitively). */
const PLACEHOLDERS = new Set([
  'model',
  'model-name',
  'model_name',
  'modelname',
  'my-model',
  'your-model',
  'your-model-here',
  'your_model_here',
  'your-model-name',
  'insert-model-here',
  'todo',
  'tbd',
  'fixme',
  'xxx',
  'changeme',
  'change-me',
  'placeholder',
  'example',
  'none',
  'null',
  'undefined',
  '...',
  '?',
]);

const BRACKETED = /^(<.*>|\{.*\}|\[.*\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%)$/;

/**
 * "default" (any case) means "let the CLI choose": it is valid and the command builders then pass
 * no --model flag at all, which is what the user meant.
 */
export const isDefaultModel = (model: string | undefined): boolean =>
  model === undefined || model.trim().toLowerCase() === 'default';

/** Returns an InvalidConfig error for an empty, placeholder or flag-like model name, else null. */
export const checkModelName = (adapterId: string, model: string | undefined): AdapterError | null => {
  if (model === undefined) return null;
  const problem = modelProblem(model);
  if (problem === null) return null;
  return new AdapterError({
    kind: 'InvalidConfig',
    adapterId,
    message: `model for ${adapterId} ${problem}: ${JSON.stringify(model)}`,
    hint: `Set a real model name in agents.${adapterId}.model in hydra.toml or with --model ${adapterId}=<name>, or remove the setting to use the CLI's default.`,
  });
};

const modelProblem = (model: string): string | null => {
  const trimmed = model.trim();
  if (trimmed === '') return 'is empty';
  if (trimmed !== model || /\s/.test(trimmed)) return 'contains whitespace';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return 'contains control characters';
  if (trimmed.startsWith('-')) return 'starts with "-" and would be read as a flag';
  if (BRACKETED.test(trimmed)) return 'is a placeholder';
  if (PLACEHOLDERS.has(trimmed.toLowerCase())) return 'is a placeholder';
  return null;
};
