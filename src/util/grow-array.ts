// Columns of numbers that grow as a stream is read: a typed array holds 10^6
// values in a few MB off the JavaScript heap, where an array of objects would
// hold tens of MB for the garbage collector to trace. Doubling keeps the copies
// linear in the final length.

type TypedArray = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** `array` when it already holds `length` values, else a copy at least twice its size. */
export function grown<T extends TypedArray>(array: T, length: number): T {
  if (length <= array.length) return array;
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(length, array.length * 2, 16));
  bigger.set(array);
  return bigger;
}
