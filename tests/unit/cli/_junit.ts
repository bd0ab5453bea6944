/** JUnit XML read back as the tests check it: attributes by name, suites and cases always lists. */
import { XMLParser } from 'fast-xml-parser';

export const junitParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => name === 'testsuite' || name === 'testcase',
});
