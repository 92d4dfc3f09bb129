import { isUuid, type NodeLocator } from '@cyclone/store-postgres';
import { parseLookupName } from './options.js';

// `pack[3]`: item task 3 of fan-out node `pack`, as `cyclone steps` prints it. Node names cannot
// hold brackets (core's name pattern), so the form is unambiguous.
const ItemForm = /^(.+)\[(\d{1,9})\]$/;

/**
 * Reads the node argument of `client.explain`: a node name, `node[index]` for an item task, or a
 * step id.
 *
 * @throws ValidationError when it is not well-formed text (empty, U+0000, a lone surrogate)
 */
export function parseNodeLocator(value: unknown): NodeLocator {
  const text = parseLookupName(value, 'explain', 'node');
  if (isUuid(text)) return { stepId: text };
  const item = ItemForm.exec(text);
  if (item) return { node: item[1]!, itemIndex: Number(item[2]) };
  return { node: text, itemIndex: null };
}
