/**
 * Credentials must never reach the database, logs or error messages. Servers echo keys back in
 * their errors (OpenAI's 401 quotes part of the key it refused), so every error text a backend keeps
 * passes through redact(): the secrets the backend knows are cut out by value, and anything shaped
 * like a key or a bearer token is cut out by pattern.
 */

const MASK = '[redacted]';

const PATTERNS: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${MASK}`],
  // name=value, name: value and "name": "value" for the usual credential names
  [
    /\b(api[_-]?key|x-goog-api-key|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|authorization|password|key(?==))(["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi,
    `$1$2${MASK}`,
  ],
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, MASK], // OpenAI-style keys, also partly masked ones
  [/\bAIza[0-9A-Za-z_-]{20,}/g, MASK], // Google API keys
  [/\bya29\.[0-9A-Za-z._-]+/g, MASK], // Google OAuth access tokens
];

/** `text` with the given secrets and anything that looks like a credential replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join(MASK);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
