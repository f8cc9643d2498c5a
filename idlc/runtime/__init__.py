"""The runtime that generated code imports. It never imports the compiler."""
