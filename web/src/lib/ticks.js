// Tick labels shared by the views. d3's "~s" given to a whole axis picks one SI
// prefix for every tick from the largest (0k, 0.5k, 1k); here each tick gets its own.
import { format } from 'd3';

const plain = format('~g');
const prefixed = format('~s');

/** A count or distance as a tick label: 0, 0.5, 500, then 1k, 1.5k, 200k, 1M. */
export function countTick(x) {
  return Math.abs(x) < 1000 ? plain(x) : prefixed(x);
}
