# Foundation tests.
