/** A score as the data-set views' tables print it: the exports' three decimals, so both agree. */
export { fixed as fmt } from '../../lib/datasets/export/format.ts';
