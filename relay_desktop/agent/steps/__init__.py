"""Steps on the phone: the actions the models may ask for, their execution, the safety gates before them and
what each changed.
"""
