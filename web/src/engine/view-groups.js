// The family groups of the view modules (wasm/view-groups.json; CMakeLists.txt links posenc-view-<group>.wasm for each:
// posenc-view.wasm's functions with only the group's families, 90-110 KB gzip against its 144). An embed of one view of
// a family downloads that family's group's module; the engine loads posenc-view.wasm in its place when a request
// needs another family (engine/server.js). Only the JSON and the comparison's range control, so that a page can ask
// before it loads anything else.
import GROUPS from '../../../wasm/view-groups.json' with { type: 'json' };
import { atDefaultRange } from '../families/compare.js';

/** {[group]: spec types}. */
export const VIEW_GROUPS = GROUPS.groups;

/**
 * The group whose module holds family `type` (the first that lists it: 'none', in every group, is the first's), or
 * null for a name no group lists (compare, experiment, model_profile, a typo: posenc-view.wasm serves those).
 * @param {string | null | undefined} type
 * @returns {string | null}
 */
export function viewGroupOf(type) {
  return Object.keys(VIEW_GROUPS).find((group) => VIEW_GROUPS[group].includes(type)) ?? null;
}

/**
 * The views of one family that read other families too (the decay comparison's references: families/compute.js
 * COMPARISON_NEEDS), which a group's module computes only where they ship (at the comparison's default range:
 * families/references.js): an embed of one at another range starts on posenc-view.wasm.
 * tests/wasm/view-groups.test.mjs checks the list against every family's views.
 */
export const CROSS_FAMILY_VIEWS = ['decay-comparison'];

/**
 * The group whose module an embed of view `viewId` of family `type` starts on, or null (posenc-view.wasm): a view of
 * CROSS_FAMILY_VIEWS at a range whose references do not ship, or a family in no group.
 * @param {string | null | undefined} viewId
 * @param {string | null | undefined} type
 * @param {string | null | undefined} [compareDistance]  the compare_distance control's raw value (absent: its default)
 * @returns {string | null}
 */
export function viewGroupFor(viewId, type, compareDistance = null) {
  return CROSS_FAMILY_VIEWS.includes(viewId) && !atDefaultRange(compareDistance) ? null : viewGroupOf(type);
}
