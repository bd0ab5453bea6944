/**
 * A case to try the page with, for demos and first visits. The texts were written for SumLens
 * (no third-party article), so they can ship with the app.
 */
import type { CaseTexts } from '../metrics/types.ts';

export const EXAMPLE_CASE: CaseTexts = {
  source: `The city council of Marlow voted 7 to 2 on Tuesday evening to close Elm Street to cars on weekends from June, turning the narrow shopping street into a pedestrian zone for a one-year trial.

Supporters, led by councillor Priya Raman, argued that foot traffic on the street had fallen by 18 percent since 2019 and that shops on similar car-free streets in nearby Henley had seen sales rise. "People linger when they are not dodging delivery vans," Raman said.

Opponents, including the Marlow Chamber of Commerce, warned that older residents would struggle to reach the pharmacy and the post office, and that the 40 parking spaces lost would push shoppers to the retail park on the ring road. The chamber asked for a six-month trial instead.

The council agreed to add a shuttle bus from the station car park every 15 minutes on Saturdays and Sundays and to review the scheme in May next year. The trial will cost about £120,000, most of it for signs, planters and the shuttle.`,
  summary: `Marlow's council voted 7–2 on Tuesday to close Elm Street to cars at weekends from June, as a one-year trial. Supporters, led by councillor Priya Raman, pointed to an 18 percent fall in foot traffic since 2019 and to rising sales on car-free streets in Henley. The Chamber of Commerce objected that older residents would lose easy access to the pharmacy and post office, and that losing 40 parking spaces would drive shoppers away. To answer those concerns the council added a weekend shuttle bus every 15 minutes and will review the £120,000 scheme next May.`,
  reference: `Marlow will make Elm Street car-free at weekends for a year from June after a 7–2 council vote. Backers cite falling foot traffic; local businesses fear lost parking and access. A weekend shuttle bus is planned and the £120,000 trial will be reviewed next May.`,
};
