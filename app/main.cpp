// The codesim command-line entry point.
int main() { return 0; }
