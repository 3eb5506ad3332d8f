// The one test for "a YAML/JSON mapping" (an object that is not an array
// or null), shared by every decoder of user input.

export const isMapping = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
