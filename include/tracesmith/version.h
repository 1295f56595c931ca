/*
 * version.h - the TraceSmith version: what the capture runtime writes into
 * a trace's "tracesmith.version" metadata and what every tool's --version
 * prints.  One definition, so that the two cannot drift apart.
 */
#ifndef TRACESMITH_VERSION_H
#define TRACESMITH_VERSION_H

#define TRACESMITH_VERSION "0.1.0"

#endif /* TRACESMITH_VERSION_H */
