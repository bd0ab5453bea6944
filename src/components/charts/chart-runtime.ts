/**
 * chart.js, loaded when the first chart mounts (the data-set views), not with the page: about
 * 200 kB of the first paint that the single-case page never draws. Registered once per page.
 */
import type { Chart } from 'chart.js';

let loading: Promise<typeof Chart> | undefined;

export function chartJs(): Promise<typeof Chart> {
  loading ??= import('chart.js').then((m) => {
    m.Chart.register(
      m.BarController,
      m.BarElement,
      m.CategoryScale,
      m.LinearScale,
      m.ScatterController,
      m.PointElement,
      m.Tooltip,
    );
    return m.Chart;
  });
  return loading;
}
