/** A variable the parent bench process must pass to its child; the child stops at once without it. */
export function childEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}
