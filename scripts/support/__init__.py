"""Helpers shared by the test scripts (scripts/*.py, scripts/faults/): Python 3 standard library only.

processes  children in sessions of their own, killed as a group, all ended at exit; loopback ports
procfs     what /proc says about a process: CPU time, memory, context switches
"""
