// "Did you mean …?": the known word nearest to a mistyped one, for errors
// about a subcommand or a source name. Edit distance (Levenshtein, case
// folded), accepted up to 2 edits (1 for words of 3 letters or fewer) or a
// third of the word's letters, so that `rendr` and `grpah` find their word
// but `kubectl` finds nothing.

/** The word of `known` nearest to `word`, or undefined when none is near enough. */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  const wanted = word.toLowerCase();
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (
      distance <= Math.max(candidate.length > 3 ? 2 : 1, Math.floor(candidate.length / 3)) &&
      (!best || distance < best.distance)
    )
      best = { word: candidate, distance };
  }
  return best?.word;
}

/** ` (did you mean "x"?)`, or '' when nothing is near: to end an error message with. */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = closestWord(word, known);
  return near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
