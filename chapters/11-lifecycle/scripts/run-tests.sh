#!/bin/sh
# The demo project's test suite: three checks that always pass.
echo "running 3 tests"
echo "test result: ok. 3 passed; 0 failed"
