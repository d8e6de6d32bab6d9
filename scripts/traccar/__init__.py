"""traccar"""
