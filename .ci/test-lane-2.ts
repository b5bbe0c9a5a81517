// make test's lane 2 (.ci/test-lane.ts): node --test runs a path once, so each lane has a file of its own.
import './test-lane.ts';
