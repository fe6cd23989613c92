"""matches"""
